"""The HashiCorp Vault transit driver (``hcvault://``; needs hvac)."""
