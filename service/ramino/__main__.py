from ramino.cli import main

raise SystemExit(main())
