"""onnxruntime, imported with its telemetry off.

onnxruntime 1.32's Linux build carries Microsoft's 1DS telemetry client: importing it writes a device id and an
event database under ``~/.cache/Microsoft/DeveloperTools/.onnxruntime`` and has an uploader to
mobile.events.data.microsoft.com compiled in. A local-first app sends nothing and writes nothing outside its own
folders, so every import of onnxruntime goes through here, which sets ``ORT_DISABLE_TELEMETRY`` first (a value
the user set is kept)."""

from __future__ import annotations

import os
from types import ModuleType


def onnxruntime() -> ModuleType:
    os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
    import onnxruntime as ort  # noqa: PLC0415 - optional dependency (the `local` extra), imported on first use

    return ort
