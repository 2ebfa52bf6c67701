"""AdminClient ACL and SCRAM requests against a broker that enforces ACLs (StandardAuthorizer)
and authenticates SASL users: ACL create/describe/delete with filters and their effect on a
client, SCRAM credentials upserted, used to log in, and deleted."""

import uuid

import pytest

import confluent_binding as kafka
from confluent_binding.admin import (
    AclBinding,
    AclBindingFilter,
    AclOperation,
    AclPermissionType,
    AdminClient,
    KafkaException,
    ResourcePatternType,
    ResourceType,
    ScramCredentialInfo,
    ScramMechanism,
    UserScramCredentialDeletion,
    UserScramCredentialUpsertion,
)
from confluent_binding.testing import SASL_USERS, KafkaCluster

from tests.support import wait_until

pytestmark = pytest.mark.integration

peer = pytest.importorskip("confluent_kafka")
import confluent_kafka.admin as peer_admin  # noqa: E402

E = kafka.KafkaError


@pytest.fixture(scope="module")
def acl_cluster(tmp_path_factory):
    with KafkaCluster(sasl=True, acl=True, workdir=tmp_path_factory.mktemp("acl")) as c:
        yield c


@pytest.fixture(scope="module")
def admin(acl_cluster):
    # the PLAINTEXT listener's principal (User:ANONYMOUS) is a super user
    with AdminClient(acl_cluster.client_config()) as a:
        yield a


def _name(prefix="acl"):
    return "%s-%s" % (prefix, uuid.uuid4().hex[:10])


def _acl(name, op, pattern=ResourcePatternType.LITERAL, principal="User:alice"):
    return AclBinding(ResourceType.TOPIC, name, pattern, principal, "*", op,
                      AclPermissionType.ALLOW)


def _produce_as(acl_cluster, user, topic, password=None, mechanism="PLAIN"):
    """The delivery error of producing one message over SASL as ``user`` (None: delivered)."""
    reports = []
    p = kafka.Producer(acl_cluster.sasl_client_config(mechanism, user, password,
                                                      **{"message.timeout.ms": 10000}))
    p.produce(topic, b"v", on_delivery=lambda err, msg: reports.append(err))
    p.flush(30)
    p.close(0)
    assert len(reports) == 1
    return None if reports[0] is None else reports[0].code()


def test_acl_create_describe_delete_round_trip(admin, acl_cluster):
    base = _name()
    literal_read = _acl(base, AclOperation.READ)
    prefixed_write = _acl(base + "-", AclOperation.WRITE, ResourcePatternType.PREFIXED)
    fs = admin.create_acls([literal_read, prefixed_write])
    assert sorted(fs) == sorted([literal_read, prefixed_write])
    assert [f.result(30) for f in fs.values()] == [None, None]

    everything = AclBindingFilter(ResourceType.ANY, None, ResourcePatternType.ANY, "User:alice",
                                  None, AclOperation.ANY, AclPermissionType.ANY)
    # DescribeAcls answers from the broker's authorizer, which applies what the controller
    # committed when its metadata catches up (after CreateAcls and DeleteAcls returned)
    assert wait_until(lambda: set(admin.describe_acls(everything).result(30))
                      >= {literal_read, prefixed_write}, lambda: admin.poll(0.1), 30)
    found = admin.describe_acls(everything).result(30)
    only_prefixed = AclBindingFilter(ResourceType.TOPIC, None, ResourcePatternType.PREFIXED,
                                     None, None, AclOperation.ANY, AclPermissionType.ANY)
    assert prefixed_write in admin.describe_acls(only_prefixed).result(30)
    assert literal_read not in admin.describe_acls(only_prefixed).result(30)
    # MATCH finds the prefixed binding for a topic name under the prefix
    matching = AclBindingFilter(ResourceType.TOPIC, base + "-x", ResourcePatternType.MATCH, None,
                                None, AclOperation.ANY, AclPermissionType.ANY)
    assert admin.describe_acls(matching).result(30) == [prefixed_write]

    # confluent-kafka sees the same bindings
    peer_client = peer_admin.AdminClient(acl_cluster.client_config(log_level=0))
    peer_found = peer_client.describe_acls(peer_admin.AclBindingFilter(
        peer_admin.ResourceType.ANY, None, peer_admin.ResourcePatternType.ANY, "User:alice", None,
        peer_admin.AclOperation.ANY, peer_admin.AclPermissionType.ANY)).result(30)
    assert sorted(map(repr, found)) == sorted(map(repr, peer_found))

    by_name = AclBindingFilter(ResourceType.TOPIC, base, ResourcePatternType.LITERAL, None, None,
                               AclOperation.ANY, AclPermissionType.ANY)
    deleted = admin.delete_acls([by_name, only_prefixed])
    assert deleted[by_name].result(30) == [literal_read]
    assert prefixed_write in deleted[only_prefixed].result(30)
    assert wait_until(lambda: admin.describe_acls(by_name).result(30) == [],
                      lambda: admin.poll(0.1), 30)


def test_acls_decide_what_a_user_may_do(admin, acl_cluster):
    topic = acl_cluster.create_topic(_name("acl-topic"))
    assert _produce_as(acl_cluster, "alice", topic) == E.TOPIC_AUTHORIZATION_FAILED
    fs = admin.create_acls([_acl(topic, AclOperation.WRITE), _acl(topic, AclOperation.DESCRIBE)])
    assert [f.result(30) for f in fs.values()] == [None, None]
    # CreateAcls returns once the controller committed them; the broker's authorizer applies
    # them when its metadata catches up, and DescribeAcls answers from that same authorizer.
    wanted = AclBindingFilter(ResourceType.TOPIC, topic, ResourcePatternType.LITERAL, None, None,
                              AclOperation.ANY, AclPermissionType.ANY)
    assert wait_until(lambda: len(admin.describe_acls(wanted).result(30)) == 2,
                      lambda: admin.poll(0.1), 30)
    assert _produce_as(acl_cluster, "alice", topic) is None


def test_invalid_acl_is_rejected_by_the_broker(admin):
    bad = AclBinding(ResourceType.TOPIC, "t", ResourcePatternType.LITERAL, "not-a-principal", "*",
                     AclOperation.READ, AclPermissionType.ALLOW)
    with pytest.raises(KafkaException) as info:
        admin.create_acls([bad])[bad].result(30)
    assert info.value.args[0].code() == E.INVALID_REQUEST


def _logs_in(acl_cluster, user, password, mechanism, expect):
    """Whether a client with these credentials gets a request through (``expect`` True: it
    does, a refusal before the broker has applied a new credential is retried) or is refused
    (``expect`` False: the broker's authentication error arrives, the request does not get
    through). Returns as soon as the expected outcome shows."""
    errors = []
    a = AdminClient(acl_cluster.sasl_client_config(mechanism, user, password,
                                                   error_cb=errors.append, log_level=0))
    try:
        fut = a.describe_cluster(request_timeout=20)
        for _ in range(150):
            if fut.done():
                return fut.exception() is None
            if not expect and any(e.code() == E._AUTHENTICATION for e in errors):
                return False
            a.poll(0.2)
        pytest.fail("neither logged in nor refused: %r" % errors)
    finally:
        a.close()


def test_scram_upsert_authenticate_delete(admin, acl_cluster):
    user, password = _name("bob"), "s3cret-" + uuid.uuid4().hex[:6]
    upsert = UserScramCredentialUpsertion(
        user, ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 8192), password.encode(),
        b"some-salt")
    fs = admin.alter_user_scram_credentials([upsert])
    assert list(fs) == [user] and fs[user].result(30) is None

    # AlterUserScramCredentials returns once the controller committed the change; the broker
    # describes and authenticates from its metadata image, which catches up a moment later
    assert wait_until(lambda: _scram_error(admin, user) is None, lambda: admin.poll(0.1), 30)
    described = admin.describe_user_scram_credentials([user])[user].result(30)
    assert described.user == user
    assert [(i.mechanism, i.iterations) for i in described.scram_credential_infos] \
        == [(ScramMechanism.SCRAM_SHA_256, 8192)]
    everyone = admin.describe_user_scram_credentials().result(30)
    assert {"admin", "alice", user} <= set(everyone)

    assert _logs_in(acl_cluster, user, password, "SCRAM-SHA-256", expect=True)
    assert not _logs_in(acl_cluster, user, "wrong", "SCRAM-SHA-256", expect=False)
    assert not _logs_in(acl_cluster, user, password, "SCRAM-SHA-512", expect=False)

    fs = admin.alter_user_scram_credentials(
        [UserScramCredentialDeletion(user, ScramMechanism.SCRAM_SHA_256)])
    assert fs[user].result(30) is None
    assert wait_until(lambda: _scram_error(admin, user) == E.RESOURCE_NOT_FOUND,
                      lambda: admin.poll(0.1), 30)
    # the credential cache the broker authenticates from is updated from the same metadata,
    # by a publisher of its own: the refusal may come a moment after describe stops finding it
    assert wait_until(
        lambda: not _logs_in(acl_cluster, user, password, "SCRAM-SHA-256", expect=False),
        lambda: None, 30)


def _scram_error(admin, user):
    """The error code of describing ``user``'s SCRAM credentials (None: described)."""
    try:
        admin.describe_user_scram_credentials([user])[user].result(30)
    except KafkaException as e:
        return e.args[0].code()
    return None


def test_set_sasl_credentials_replaces_a_refused_password(acl_cluster):
    errors = []
    a = AdminClient(acl_cluster.sasl_client_config(
        "SCRAM-SHA-256", "alice", "wrong", error_cb=errors.append, log_level=0,
        **{"reconnect.backoff.max.ms": 500}))
    try:
        for _ in range(150):
            if any(e.code() == E._AUTHENTICATION for e in errors):
                break
            a.poll(0.2)
        else:
            pytest.fail("the wrong password was not refused: %r" % errors)
        a.set_sasl_credentials("alice", SASL_USERS["alice"])
        # alice may describe the cluster without ACLs: the request succeeds once she logs in
        result = a.describe_cluster(request_timeout=30).result(40)
        assert [n.port for n in result.nodes] == [acl_cluster.ports["SASL_PLAINTEXT"]]
    finally:
        a.close()


def test_deleting_a_missing_credential_fails_like_confluent(admin, acl_cluster):
    user = _name("nobody")
    ours = admin.alter_user_scram_credentials(
        [UserScramCredentialDeletion(user, ScramMechanism.SCRAM_SHA_512)])[user]
    peer_client = peer_admin.AdminClient(acl_cluster.client_config(log_level=0))
    theirs = peer_client.alter_user_scram_credentials(
        [peer_admin.UserScramCredentialDeletion(
            user, peer_admin.ScramMechanism.SCRAM_SHA_512)])[user]
    with pytest.raises(KafkaException) as a:
        ours.result(30)
    with pytest.raises(peer.KafkaException) as b:
        theirs.result(30)
    assert a.value.args[0].code() == b.value.args[0].code() == E.RESOURCE_NOT_FOUND
    assert a.value.args[0].str() == b.value.args[0].str()
