"""A hosted game's half of the application: its cache and locks, the lobby,
the moves, watching and sessions, the duties and housekeeping."""
