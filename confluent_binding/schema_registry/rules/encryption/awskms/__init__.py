"""The AWS KMS driver (``aws-kms://``; needs boto3)."""
