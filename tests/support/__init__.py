"""Helpers the tests share: client configurations (no broker, librdkafka's mock cluster)."""

from tests.support.configs import closed_port, mock, unreachable

__all__ = ["closed_port", "mock", "unreachable"]
