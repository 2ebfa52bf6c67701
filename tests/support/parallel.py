"""How `make test` spreads the suite over pytest-xdist workers (``-n TEST_WORKERS``, loadfile).

Each worker is a pytest session of its own: it starts the session-scoped servers its tests ask
for (a broker, the secure cluster, the Schema Registry, ...), on ports and in a temporary
directory of its own. The controller hands out work in units, never splitting one:

- a test file (its module-scoped fixtures, such as the private brokers of the reliability tests,
  start once);
- a group of files that share an expensive session-scoped server (tests/conftest.py GROUPS, e.g.
  every Spark test on the one worker that starts Spark's JVMs);
- the timing-sensitive tests (tests/conftest.py TIMING_SENSITIVE), as one unit that runs first,
  on one worker, while the others wait: the delays they assert are measured on an otherwise idle
  suite, as in a serial run.

Units go out in the order ``rank`` gives (the longest-running kinds first, so the many short
unit-test files fill the end of the run evenly), each to the next worker that has run out of
work. A worker runs its tests in the order it was given them.
"""

from collections import OrderedDict

from xdist.scheduler import LoadScopeScheduling


class SuiteScheduling(LoadScopeScheduling):
    """LoadScopeScheduling with units and order of the suite's choosing.

    ``unit_of(nodeid)``: the unit a test belongs to; ``rank(unit)``: a sort key of units (ties
    keep the order of collection); ``alone``: the unit that runs first, with every other worker
    waiting until it is done (or None)."""

    def __init__(self, config, log, unit_of, rank, alone=None):
        super().__init__(config, log)
        self._unit_of = unit_of
        self._rank = rank
        self._alone = alone
        self._alone_node = None     # the worker running the ``alone`` unit, until it is done

    def _split_scope(self, nodeid):
        return self._unit_of(nodeid)

    def _alone_running(self):
        if self._alone_node is None:
            return False
        unit = self.assigned_work.get(self._alone_node, {}).get(self._alone)
        if unit is not None and not all(unit.values()):
            return True
        self._alone_node = None     # done (or its worker went away: the unit is queued again)
        return False

    def _reschedule(self, node):
        if self._alone_running() and node is not self._alone_node:
            return
        super()._reschedule(node)

    def mark_test_complete(self, node, item_index, duration=0):
        waiting = self._alone_node is not None
        super().mark_test_complete(node, item_index, duration)
        if waiting and not self._alone_running():
            for other in self.nodes:
                if other is not node:
                    self._reschedule(other)

    def remove_node(self, node):
        if node is self._alone_node:
            self._alone_node = None
        return super().remove_node(node)

    def schedule(self):
        assert self.collection_is_completed
        if self.collection is not None:
            for node in self.nodes:
                self._reschedule(node)
            return
        if not self._check_nodes_have_same_collection():
            self.log("**Different tests collected, aborting run**")
            return
        self.collection = list(next(iter(self.registered_collections.values())))
        if not self.collection:
            return
        units = OrderedDict()
        for nodeid in self.collection:
            units.setdefault(self._split_scope(nodeid), {})[nodeid] = False
        order = sorted(units, key=lambda unit: (unit != self._alone, self._rank(unit)))
        self.workqueue = OrderedDict((unit, units[unit]) for unit in order)
        for _ in range(len(self.nodes) - len(self.workqueue)):
            unused, _assigned = self.assigned_work.popitem()
            unused.shutdown()
        if self._alone in self.workqueue:
            self._alone_node = self.nodes[0]
            self._assign_work_unit(self._alone_node)
            return
        for node in self.nodes:
            self._assign_work_unit(node)
