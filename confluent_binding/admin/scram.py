"""SASL/SCRAM credentials: describe_user_scram_credentials(), alter_user_scram_credentials()."""

from ._convert import OrderedEnum


class ScramMechanism(OrderedEnum):
    """SCRAM mechanisms (``rd_kafka_ScramMechanism_t``)."""

    UNKNOWN = 0
    SCRAM_SHA_256 = 1
    SCRAM_SHA_512 = 2


class ScramCredentialInfo:
    """A mechanism and its iteration count."""

    def __init__(self, mechanism, iterations):
        self.mechanism = mechanism
        self.iterations = iterations


class UserScramCredentialsDescription:
    """Result of describe_user_scram_credentials() for one user."""

    def __init__(self, user, scram_credential_infos):
        self.user = user
        self.scram_credential_infos = scram_credential_infos


class UserScramCredentialAlteration:
    """Base of the two alterations below."""

    def __init__(self, user):
        self.user = user


class UserScramCredentialUpsertion(UserScramCredentialAlteration):
    """Create or replace a user's credential (``password`` and optional ``salt`` are bytes)."""

    def __init__(self, user, scram_credential_info, password, salt=None):
        super().__init__(user)
        self.scram_credential_info = scram_credential_info
        self.password = password
        self.salt = salt


class UserScramCredentialDeletion(UserScramCredentialAlteration):
    """Delete a user's credential for one mechanism."""

    def __init__(self, user, mechanism):
        super().__init__(user)
        self.mechanism = mechanism
