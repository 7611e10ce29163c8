"""``python -m ramino_client.play``: the same as ``ramino-play``."""

from ramino_client.play import main

raise SystemExit(main())
