"""The Google Cloud KMS driver (``gcp-kms://``; needs google-cloud-kms)."""
