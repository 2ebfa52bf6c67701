"""The Azure Key Vault driver (``azure-kms://``; needs azure-identity and azure-keyvault-keys)."""
