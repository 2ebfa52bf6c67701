"""The Azure Key Vault driver (``azure-kms://``; needs azure-identity and azure-keyvault-keys)."""

from . import azure_client, azure_driver

# confluent-kafka's azure_client module offers its sibling azure_driver by that name (it imports
# it); here the driver is above the client (it imports it), so the package sets the name
azure_client.azure_driver = azure_driver
