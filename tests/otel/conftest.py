"""tests/otel: the OpenTelemetry SDK and opentelemetry-proto are the [otel] extra (CI
installs it with the test extra); without them these tests skip."""

from __future__ import annotations

import pytest

pytest.importorskip("opentelemetry.sdk.trace", reason="needs pip install 'mockhttp[otel]'")
pytest.importorskip("opentelemetry.proto", reason="needs pip install 'mockhttp[otel]'")
