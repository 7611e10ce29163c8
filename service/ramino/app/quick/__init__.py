"""Quick play's half of the application: tickets, parties, the matchmaker
(its policy and its runner), ratings, leaderboards and records."""
