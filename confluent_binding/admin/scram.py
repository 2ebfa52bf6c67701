"""SASL/SCRAM credentials: describe_user_scram_credentials(), alter_user_scram_credentials()."""

from typing import List, Optional

from ._convert import OrderedEnum


class ScramMechanism(OrderedEnum):
    """SCRAM mechanisms (``rd_kafka_ScramMechanism_t``)."""

    UNKNOWN = 0
    SCRAM_SHA_256 = 1
    SCRAM_SHA_512 = 2


class ScramCredentialInfo:
    """A mechanism and its iteration count."""

    def __init__(self, mechanism: ScramMechanism, iterations: int) -> None:
        self.mechanism: ScramMechanism = mechanism
        self.iterations: int = iterations


class UserScramCredentialsDescription:
    """Result of describe_user_scram_credentials() for one user."""

    def __init__(self, user: str, scram_credential_infos: List[ScramCredentialInfo]) -> None:
        self.user: str = user
        self.scram_credential_infos: List[ScramCredentialInfo] = scram_credential_infos


class UserScramCredentialAlteration:
    """Base of the two alterations below."""

    def __init__(self, user: str) -> None:
        self.user: str = user


class UserScramCredentialUpsertion(UserScramCredentialAlteration):
    """Create or replace a user's credential (``password`` and optional ``salt`` are bytes)."""

    def __init__(self, user: str, scram_credential_info: ScramCredentialInfo, password: bytes,
                 salt: Optional[bytes] = None) -> None:
        super().__init__(user)
        self.scram_credential_info: ScramCredentialInfo = scram_credential_info
        self.password: bytes = password
        self.salt: Optional[bytes] = salt


class UserScramCredentialDeletion(UserScramCredentialAlteration):
    """Delete a user's credential for one mechanism."""

    def __init__(self, user: str, mechanism: ScramMechanism) -> None:
        super().__init__(user)
        self.mechanism: ScramMechanism = mechanism
