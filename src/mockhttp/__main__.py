"""``python -m mockhttp``: the ``mockhttp`` command."""

from ._cli._main import main

raise SystemExit(main())
