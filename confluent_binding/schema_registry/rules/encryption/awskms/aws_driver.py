"""The ``aws-kms://`` driver: the KMS key's ARN follows the prefix. Credentials: the rule's
``access.key.id`` and ``secret.access.key``, else its ``profile``, else boto3's default chain;
with ``role.arn`` (or ``AWS_ROLE_ARN``) the role is assumed (``role.session.name``,
``role.external.id``, or the ``AWS_ROLE_*`` variables) unless ``AWS_WEB_IDENTITY_TOKEN_FILE``
is set."""

import os
from typing import Any, Dict

from tink import KmsClient, TinkError

from .._sdk import require, setting
from ..kms_driver_registry import KmsDriver, _PrefixDriver, register_kms_driver

__all__ = ["AwsKmsDriver", "KmsDriver", "register_kms_driver"]

_PREFIX = "aws-kms://"


def _region(key_url: str) -> str:
    """The region of ``aws-kms://arn:aws:kms:<region>:<account>:key/<id>``."""
    if not key_url.startswith(_PREFIX):
        raise TinkError("invalid key URI")
    parts = key_url[len(_PREFIX):].split(":")
    if len(parts) < 6:
        raise TinkError("invalid key id")
    return parts[3]


def _aws_sdk(module: str) -> Any:
    return require(module, "AWS KMS", "encryption-aws")


class AwsKmsDriver(_PrefixDriver):
    """The driver of ``aws-kms://`` key URLs (its settings: see the module)."""

    prefix = _PREFIX

    def _client(self, conf: Dict[str, Any], key_url: str) -> KmsClient:
        boto3 = _aws_sdk("boto3")
        awskms = _aws_sdk("tink.integration.awskms")
        region = _region(key_url)
        key, secret = conf.get("access.key.id"), conf.get("secret.access.key")
        if key is not None and secret is not None:
            session = boto3.Session(region_name=region, aws_access_key_id=key,
                                    aws_secret_access_key=secret)
        elif conf.get("profile") is not None:
            session = boto3.Session(region_name=region, profile_name=conf["profile"])
        else:
            session = boto3.Session(region_name=region)
        role_arn = setting(conf, "role.arn", "AWS_ROLE_ARN")
        if role_arn is not None and os.getenv("AWS_WEB_IDENTITY_TOKEN_FILE") is None:
            credentials = _aws_sdk("botocore.credentials")
            params = {"RoleArn": role_arn, "RoleSessionName": setting(
                conf, "role.session.name", "AWS_ROLE_SESSION_NAME") or "confluent-encrypt"}
            external_id = setting(conf, "role.external.id", "AWS_ROLE_EXTERNAL_ID")
            if external_id is not None:
                params["ExternalId"] = external_id
            refresher = credentials.create_assume_role_refresher(session.client("sts"), params)
            session._session._credentials = credentials.DeferredRefreshableCredentials(
                method="sts-assume-role", refresh_using=refresher)
        return awskms.new_client(boto3_client=session.client("kms"), key_uri=key_url)
