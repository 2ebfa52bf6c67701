"""Field-level encryption (``ENCRYPT`` rules on tagged fields, ``ENCRYPT_PAYLOAD`` on the whole
encoded record) with Google's Tink (extra ``[encryption]``): :mod:`.encrypt_executor` has the
executors, :mod:`.kms_driver_registry` the KMS drivers (:mod:`.localkms`, :mod:`.awskms`,
:mod:`.azurekms`, :mod:`.gcpkms`, :mod:`.hcvault`), :mod:`.dek_registry` the DEK Registry client.
"""
