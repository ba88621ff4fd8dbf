"""``python -m mockhttp``: the ``mockhttp`` command."""

from ._cli import main

raise SystemExit(main())
