"""healrt: the HealBench runtime that pauses a Python program at a crash in project code.

See docs/control-protocol.md for the contract with the controller.
"""

PROTOCOL_VERSION = 1

from .sinks import HealGuardViolation, protected

__all__ = ["PROTOCOL_VERSION", "HealGuardViolation", "protected"]
