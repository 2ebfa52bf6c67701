"""The local KMS (a KEK derived from a secret), for development and tests."""
