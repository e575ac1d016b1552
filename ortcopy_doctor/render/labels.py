"""How copy kinds and directions read in the terminal and the HTML report (no rich here: the HTML report and
``check -q`` load no terminal renderer)."""

from __future__ import annotations

KIND_LABEL = {"feed": "feed copy", "fetch": "fetch copy", "memcpy_node": "Memcpy node", "in_kernel": "in-kernel",
              "unexplained": "unexplained"}
DIRECTION_LABEL = {"host_to_device": "host→device", "device_to_host": "device→host"}

__all__ = ["DIRECTION_LABEL", "KIND_LABEL"]
