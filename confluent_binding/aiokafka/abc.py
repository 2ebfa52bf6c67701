"""aiokafka's abstract interfaces (``aiokafka.abc``)."""

import abc
from typing import Any

__all__ = ["AbstractTokenProvider", "ConsumerRebalanceListener"]


class ConsumerRebalanceListener(abc.ABC):
    """What a subscribed consumer calls when its group's assignment changes; give one to
    ``AIOKafkaConsumer.subscribe(listener=...)``. Both methods may be plain methods or
    coroutines; the consumer returns no record while they run, and assigns (or gives up) the
    partitions once they are done. They receive sets of :class:`TopicPartition`."""

    @abc.abstractmethod
    def on_partitions_revoked(self, revoked: Any) -> Any:
        """Called before a rebalance takes ``revoked`` away (commit what was processed
        here when committing by hand). Not called by ``stop()``'s final revoke on aiokafka;
        here it is, as librdkafka revokes through the same callback."""

    @abc.abstractmethod
    def on_partitions_assigned(self, assigned: Any) -> Any:
        """Called once ``assigned`` are the consumer's, before it fetches from them."""


class AbstractTokenProvider(abc.ABC):
    """A SASL/OAUTHBEARER token source for ``sasl_oauth_token_provider=``: ``await token()``
    returns the token string; ``extensions()`` the SASL extensions (a dict)."""

    @abc.abstractmethod
    async def token(self) -> Any:
        """The current token (a str); called when librdkafka needs a new one."""

    def extensions(self) -> Any:
        """SASL extensions sent with the token; none by default."""
        return {}
