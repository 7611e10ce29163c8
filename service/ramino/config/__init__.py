"""``ramino serve``'s configuration: one typed tree (:mod:`.tree`) whose
fields are the single source of the flags, the ``RAMINO_*`` variables,
their help and defaults; the TOML file of ``--config``; the four sources
resolved (:mod:`.load`: a flag over a variable over the file over the
default) and shown (:mod:`.render`)."""

from ramino.config.flags import add_flags, configured
from ramino.config.load import ConfigError, Resolved, Source, resolve
from ramino.config.render import markdown, show
from ramino.config.tree import (
    Bots,
    Connections,
    Limits,
    PlayerTokens,
    Quick,
    ServeConfig,
    Server,
    Store,
    Streams,
    Tls,
    entries,
)

__all__ = [
    "Bots",
    "ConfigError",
    "Connections",
    "Limits",
    "PlayerTokens",
    "Quick",
    "Resolved",
    "ServeConfig",
    "Server",
    "Source",
    "Store",
    "Streams",
    "Tls",
    "add_flags",
    "configured",
    "entries",
    "markdown",
    "resolve",
    "show",
]
