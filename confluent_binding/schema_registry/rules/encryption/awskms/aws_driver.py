"""The ``aws-kms://`` driver: the KMS key's ARN follows the prefix. Credentials: the rule's
``access.key.id`` and ``secret.access.key``, else its ``profile``, else boto3's default chain;
with ``role.arn`` (or ``AWS_ROLE_ARN``) the role is assumed (``role.session.name``,
``role.external.id``) unless ``AWS_WEB_IDENTITY_TOKEN_FILE`` is set."""

import os
from typing import Any, Dict, Optional

from tink import KmsClient, TinkError

from .._sdk import require, setting
from ..kms_driver_registry import KmsDriver, _PrefixDriver, register_kms_driver

__all__ = ["AwsKmsDriver", "KmsDriver", "register_kms_driver"]

_PREFIX = "aws-kms://"
_ACCESS_KEY_ID = "access.key.id"
_SECRET_ACCESS_KEY = "secret.access.key"
_PROFILE = "profile"
_ROLE_ARN = "role.arn"
_ROLE_SESSION_NAME = "role.session.name"
_ROLE_EXTERNAL_ID = "role.external.id"


def _region(key_url: str) -> str:
    """The region of ``aws-kms://arn:aws:kms:<region>:<account>:key/<id>``."""
    if not key_url.startswith(_PREFIX):
        raise TinkError("invalid key URI")
    parts = key_url[len(_PREFIX):].split(":")
    if len(parts) < 6:
        raise TinkError("invalid key id")
    return parts[3]


class AwsKmsDriver(_PrefixDriver):
    """The driver of ``aws-kms://`` key URLs; ``AwsKmsDriver.register()`` adds it to the
    registry of drivers, as confluent-kafka's does.
    """

    prefix = _PREFIX

    def new_kms_client(self, conf: Dict[str, Any], key_url: Optional[str]) -> KmsClient:
        """A KMS client for ``key_url`` (any ``aws-kms://`` key when None), configured by
        ``conf``: ``access.key.id`` and ``secret.access.key``, or ``profile``, else boto3's
        default credentials; ``role.arn`` (``role.session.name``, ``role.external.id``, or the
        ``AWS_ROLE_*`` variables) to assume a role.
        """
        key_url = key_url or _PREFIX
        boto3 = require("boto3", "AWS KMS", "encryption-aws")
        awskms = require("tink.integration.awskms", "AWS KMS", "encryption-aws")
        region = _region(key_url)
        key, secret = conf.get(_ACCESS_KEY_ID), conf.get(_SECRET_ACCESS_KEY)
        if key is not None and secret is not None:
            session = boto3.Session(region_name=region, aws_access_key_id=key,
                                    aws_secret_access_key=secret)
        elif conf.get(_PROFILE) is not None:
            session = boto3.Session(region_name=region, profile_name=conf[_PROFILE])
        else:
            session = boto3.Session(region_name=region)
        role_arn = setting(conf, _ROLE_ARN, "AWS_ROLE_ARN")
        if role_arn is not None and os.getenv("AWS_WEB_IDENTITY_TOKEN_FILE") is None:
            credentials = require("botocore.credentials", "AWS KMS", "encryption-aws")
            params = {"RoleArn": role_arn, "RoleSessionName": setting(
                conf, _ROLE_SESSION_NAME, "AWS_ROLE_SESSION_NAME") or "confluent-encrypt"}
            external_id = setting(conf, _ROLE_EXTERNAL_ID, "AWS_ROLE_EXTERNAL_ID")
            if external_id is not None:
                params["ExternalId"] = external_id
            refresher = credentials.create_assume_role_refresher(session.client("sts"), params)
            session._session._credentials = credentials.DeferredRefreshableCredentials(
                method="sts-assume-role", refresh_using=refresher)
        return awskms.new_client(boto3_client=session.client("kms"), key_uri=key_url)
