"""What each KMS driver hands its client: the settings read from the rule (else the environment),
the key URL defaulted to the driver's prefix. The cloud SDKs are replaced by recorders, so these
run without them (tests/unit/test_sr_encryption.py covers the local KMS end to end)."""

import types

import pytest

pytest.importorskip("tink")

from tink import TinkError  # noqa: E402

from confluent_binding.schema_registry.rules.encryption.awskms import aws_driver  # noqa: E402
from confluent_binding.schema_registry.rules.encryption.azurekms import (  # noqa: E402
    azure_driver,
)
from confluent_binding.schema_registry.rules.encryption.gcpkms import gcp_driver  # noqa: E402
from confluent_binding.schema_registry.rules.encryption.hcvault import (  # noqa: E402
    hcvault_driver,
)

_ENV = ("VAULT_TOKEN", "VAULT_NAMESPACE", "VAULT_APPROLE_ROLE_ID", "VAULT_APPROLE_SECRET_ID",
        "VAULT_CACERT", "VAULT_CLIENT_CERT", "VAULT_CLIENT_KEY", "AWS_ROLE_ARN",
        "AWS_ROLE_SESSION_NAME", "AWS_ROLE_EXTERNAL_ID", "AWS_WEB_IDENTITY_TOKEN_FILE")


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch):
    for name in _ENV:
        monkeypatch.delenv(name, raising=False)


def _recorder(calls):
    def record(*args, **kwargs):
        calls.append((args, kwargs))
        return ("client", len(calls))
    return record


def test_hcvault_reads_each_setting_from_the_rule_else_the_environment(monkeypatch):
    calls = []
    monkeypatch.setattr(hcvault_driver, "HcVaultKmsClient", _recorder(calls))
    monkeypatch.setenv("VAULT_NAMESPACE", "ns-env")
    monkeypatch.setenv("VAULT_APPROLE_SECRET_ID", "secret-env")
    monkeypatch.setenv("VAULT_CLIENT_KEY", "key.pem")
    driver = hcvault_driver.HcVaultKmsDriver()
    url = "hcvault://http://vault:8200/transit/keys/k"
    conf = {"token.id": "tok", "approle.role.id": "role", "ssl.ca.location": "",
            "ssl.certificate.location": "cert.pem"}

    assert driver.new_kms_client(conf, url) == ("client", 1)
    assert driver.new_kms_client({"token.id": "t2", "namespace": "ns",
                                  "ssl.certificate.location": "c.pem"}, None) == ("client", 2)
    monkeypatch.setenv("VAULT_CACERT", "ca.pem")
    monkeypatch.delenv("VAULT_CLIENT_KEY")
    driver.new_kms_client({}, url)

    assert calls == [
        ((url, "tok", "ns-env", "role", "secret-env", True, ("cert.pem", "key.pem")), {}),
        (("hcvault://", "t2", "ns", None, "secret-env", True, ("c.pem", "key.pem")), {}),
        ((url, None, "ns-env", None, "secret-env", "ca.pem", None), {}),
    ]
    monkeypatch.setenv("VAULT_CLIENT_KEY", "key.pem")
    with pytest.raises(ValueError, match="ssl.certificate.location required when configuring "
                                         "ssl.key.location"):
        driver.new_kms_client({}, url)


class _ServiceAccount:
    """google.oauth2.service_account as far as the driver uses it."""

    def __init__(self):
        self.infos = []
        self.Credentials = self

    def from_service_account_info(self, info):
        self.infos.append(info)
        return "credentials-%d" % len(self.infos)


def test_gcp_builds_the_service_account_from_the_rule(monkeypatch):
    account = _ServiceAccount()
    clients = []
    monkeypatch.setattr(gcp_driver, "require", lambda module, kms, extra: account)
    monkeypatch.setattr(gcp_driver, "GcpKmsClient", _recorder(clients))
    driver = gcp_driver.GcpKmsDriver()
    url = "gcp-kms://projects/p/locations/l/keyRings/r/cryptoKeys/k"
    fields = {"client.id": "id", "client.email": "a@b", "private.key.id": "kid",
              "private.key": "pem"}

    driver.new_kms_client(dict(fields), url)
    driver.new_kms_client(dict(fields, **{"token.uri": "https://token"}), None)
    driver.new_kms_client({"client.id": "id", "client.email": "a@b"}, url)

    expected = {"type": "service_account", "client_id": "id", "client_email": "a@b",
                "private_key_id": "kid", "private_key": "pem",
                "token_uri": "https://oauth2.googleapis.com/token"}
    assert account.infos == [expected, dict(expected, token_uri="https://token")]
    assert clients == [((url, "credentials-1"), {}), (("gcp-kms://", "credentials-2"), {}),
                       ((url, None), {})]
    with pytest.raises(TinkError, match="account.type must be 'service_account'"):
        driver.new_kms_client(dict(fields, **{"account.type": "user"}), url)


class _Boto3:
    """boto3, botocore.credentials and tink's awskms as far as the driver uses them."""

    def __init__(self):
        self.sessions = []
        self.refreshers = []

    def Session(self, **kwargs):  # noqa: N802 (boto3's name)
        self.sessions.append(kwargs)
        return types.SimpleNamespace(client=lambda name: "%s-client" % name,
                                     _session=types.SimpleNamespace(_credentials=None))

    def create_assume_role_refresher(self, client, params):
        self.refreshers.append((client, params))
        return "refresher"

    def DeferredRefreshableCredentials(self, **kwargs):  # noqa: N802 (botocore's name)
        return kwargs

    def new_client(self, boto3_client, key_uri):
        return (boto3_client, key_uri)


def test_aws_session_credentials_and_role(monkeypatch):
    sdk = _Boto3()
    monkeypatch.setattr(aws_driver, "require", lambda module, kms, extra: sdk)
    driver = aws_driver.AwsKmsDriver()
    url = "aws-kms://arn:aws:kms:eu-west-1:123:key/k"

    assert driver.new_kms_client({"access.key.id": "ak", "secret.access.key": "sk",
                                  "profile": "p"}, url) == ("kms-client", url)
    driver.new_kms_client({"access.key.id": "ak", "profile": "p"}, url)
    driver.new_kms_client({}, url)
    monkeypatch.setenv("AWS_ROLE_SESSION_NAME", "env-session")
    driver.new_kms_client({"role.arn": "arn:role", "role.external.id": "x"}, url)
    monkeypatch.setenv("AWS_ROLE_ARN", "arn:env-role")
    monkeypatch.delenv("AWS_ROLE_SESSION_NAME")
    driver.new_kms_client({}, url)
    monkeypatch.setenv("AWS_WEB_IDENTITY_TOKEN_FILE", "token")
    driver.new_kms_client({}, url)

    region = {"region_name": "eu-west-1"}
    assert sdk.sessions == [
        dict(region, aws_access_key_id="ak", aws_secret_access_key="sk"),
        dict(region, profile_name="p"), region, region, region, region]
    assert sdk.refreshers == [
        ("sts-client", {"RoleArn": "arn:role", "RoleSessionName": "env-session",
                        "ExternalId": "x"}),
        ("sts-client", {"RoleArn": "arn:env-role", "RoleSessionName": "confluent-encrypt"}),
    ]
    with pytest.raises(TinkError, match="invalid key id"):
        driver.new_kms_client({}, None)  # the bare prefix names no key, nor its region
    with pytest.raises(TinkError, match="invalid key URI"):
        driver.new_kms_client({}, "gcp-kms://projects/p")


def test_azure_defaults_the_key_url_to_its_prefix(monkeypatch):
    clients = []
    monkeypatch.setattr(azure_driver, "AzureKmsClient", _recorder(clients))
    monkeypatch.setattr(azure_driver, "_get_credentials", lambda conf: ("cred", conf["tenant.id"]))
    driver = azure_driver.AzureKmsDriver()
    conf = {"tenant.id": "t"}
    url = "azure-kms://https://v.vault.azure.net/keys/k"

    driver.new_kms_client(conf, url)
    driver.new_kms_client(conf, None)

    assert clients == [((url, ("cred", "t"), conf), {}),
                       (("azure-kms://", ("cred", "t"), conf), {})]
    assert driver.get_key_url_prefix() == "azure-kms://"
