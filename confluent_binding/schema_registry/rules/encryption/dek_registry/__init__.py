"""The DEK Registry client (:mod:`.dek_registry_client`) and its in-memory stand-in for tests
(:mod:`.mock_dek_registry_client`)."""
