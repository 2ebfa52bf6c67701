# The AdminClient's compiled part: requests are built on librdkafka's Admin API from plain Python
# data (already checked by confluent_binding.admin), sent to a private result queue, and their
# results are turned back into plain tuples that the Python side makes into model objects.
#
# Serving: a thread the AdminClient owns calls _serve_results(), which waits on the result
# queue without the GIL and completes the request's concurrent.futures.Future. librdkafka's own
# threads never run Python; error_cb/stats_cb/logger/oauth_cb events go to the main queue and
# are served only by poll().

from libc.stdint cimport intptr_t
from libc.stdlib cimport free, malloc
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_GET_SIZE

from includes.rdkafka_admin cimport *


cdef inline object _str_or_none(const char *s):
    return None if s == NULL else _cstr(s)


cdef object _error_from(const rd_kafka_error_t *error):
    """KafkaError for a result's (borrowed) rd_kafka_error_t, None for NULL or no error."""
    if error == NULL or rd_kafka_error_code(error) == RD_KAFKA_RESP_ERR_NO_ERROR:
        return None
    return KafkaError(<int>rd_kafka_error_code(error), _cstr(rd_kafka_error_string(error)),
                      rd_kafka_error_is_fatal(error), rd_kafka_error_is_retriable(error),
                      rd_kafka_error_txn_requires_abort(error))


cdef object _node(const rd_kafka_Node_t *n):
    if n == NULL:
        return None
    return (rd_kafka_Node_id(n), _str_or_none(rd_kafka_Node_host(n)), rd_kafka_Node_port(n),
            _str_or_none(rd_kafka_Node_rack(n)))


cdef list _nodes(const rd_kafka_Node_t **nodes, size_t cnt):
    return [_node(nodes[i]) for i in range(cnt)]


cdef object _operations(const rd_kafka_AclOperation_t *ops, size_t cnt):
    if ops == NULL:
        return None
    return [<int>ops[i] for i in range(cnt)]


cdef list _topic_results(const rd_kafka_topic_result_t **res, size_t cnt):
    return [(_cstr(rd_kafka_topic_result_name(res[i])),
             _kafka_error(rd_kafka_topic_result_error(res[i]),
                          rd_kafka_topic_result_error_string(res[i])))
            for i in range(cnt)]


cdef tuple _config_entry(const rd_kafka_ConfigEntry_t *e):
    cdef size_t n = 0
    cdef const rd_kafka_ConfigEntry_t **syn = rd_kafka_ConfigEntry_synonyms(e, &n)
    return (_cstr(rd_kafka_ConfigEntry_name(e)), _str_or_none(rd_kafka_ConfigEntry_value(e)),
            <int>rd_kafka_ConfigEntry_source(e), bool(rd_kafka_ConfigEntry_is_read_only(e)),
            bool(rd_kafka_ConfigEntry_is_default(e)), bool(rd_kafka_ConfigEntry_is_sensitive(e)),
            bool(rd_kafka_ConfigEntry_is_synonym(e)), [_config_entry(syn[i]) for i in range(n)])


cdef list _config_results(const rd_kafka_ConfigResource_t **res, size_t cnt):
    cdef list out = []
    cdef size_t i, n
    cdef const rd_kafka_ConfigEntry_t **entries
    for i in range(cnt):
        n = 0
        entries = rd_kafka_ConfigResource_configs(res[i], &n)
        out.append((<int>rd_kafka_ConfigResource_type(res[i]),
                    _cstr(rd_kafka_ConfigResource_name(res[i])),
                    _kafka_error(rd_kafka_ConfigResource_error(res[i]),
                                 rd_kafka_ConfigResource_error_string(res[i])),
                    [_config_entry(entries[j]) for j in range(n)]))
    return out


cdef tuple _acl(const rd_kafka_AclBinding_t *a):
    return (<int>rd_kafka_AclBinding_restype(a), _str_or_none(rd_kafka_AclBinding_name(a)),
            <int>rd_kafka_AclBinding_resource_pattern_type(a),
            _str_or_none(rd_kafka_AclBinding_principal(a)),
            _str_or_none(rd_kafka_AclBinding_host(a)), <int>rd_kafka_AclBinding_operation(a),
            <int>rd_kafka_AclBinding_permission_type(a))


cdef list _group_results(const rd_kafka_group_result_t **res, size_t cnt, bint with_partitions):
    """Per group in request order: a KafkaError, or (group, partitions) / None."""
    cdef list out = []
    cdef size_t i
    for i in range(cnt):
        err = _error_from(rd_kafka_group_result_error(res[i]))
        if err is not None:
            out.append(err)
        elif with_partitions:
            out.append((_cstr(rd_kafka_group_result_name(res[i])),
                        _parts_to_py(rd_kafka_group_result_partitions(res[i]))))
        else:
            out.append(None)
    return out


cdef object _member_assignment(const rd_kafka_MemberAssignment_t *a):
    if a == NULL:
        return None
    return _parts_to_py(rd_kafka_MemberAssignment_partitions(a))


cdef object _group_description(const rd_kafka_ConsumerGroupDescription_t *g):
    err = _error_from(rd_kafka_ConsumerGroupDescription_error(g))
    if err is not None:
        return err
    cdef size_t i, nops = 0
    cdef const rd_kafka_MemberDescription_t *m
    cdef list members = []
    for i in range(rd_kafka_ConsumerGroupDescription_member_count(g)):
        m = rd_kafka_ConsumerGroupDescription_member(g, i)
        members.append((_str_or_none(rd_kafka_MemberDescription_consumer_id(m)),
                        _str_or_none(rd_kafka_MemberDescription_client_id(m)),
                        _str_or_none(rd_kafka_MemberDescription_host(m)),
                        _str_or_none(rd_kafka_MemberDescription_group_instance_id(m)),
                        _member_assignment(rd_kafka_MemberDescription_assignment(m)),
                        _member_assignment(rd_kafka_MemberDescription_target_assignment(m))))
    cdef const rd_kafka_AclOperation_t *ops = \
        rd_kafka_ConsumerGroupDescription_authorized_operations(g, &nops)
    return (_cstr(rd_kafka_ConsumerGroupDescription_group_id(g)),
            bool(rd_kafka_ConsumerGroupDescription_is_simple_consumer_group(g)), members,
            _str_or_none(rd_kafka_ConsumerGroupDescription_partition_assignor(g)),
            <int>rd_kafka_ConsumerGroupDescription_state(g),
            _node(rd_kafka_ConsumerGroupDescription_coordinator(g)), _operations(ops, nops),
            <int>rd_kafka_ConsumerGroupDescription_type(g))


cdef object _topic_description(const rd_kafka_TopicDescription_t *t):
    err = _error_from(rd_kafka_TopicDescription_error(t))
    if err is not None:
        return err
    cdef size_t i, nparts = 0, nops = 0, nrep, nisr
    cdef const rd_kafka_TopicPartitionInfo_t **parts = rd_kafka_TopicDescription_partitions(t, &nparts)
    cdef const rd_kafka_Node_t **rep
    cdef const rd_kafka_Node_t **isr
    cdef list partitions = []
    for i in range(nparts):
        nrep = nisr = 0
        rep = rd_kafka_TopicPartitionInfo_replicas(parts[i], &nrep)
        isr = rd_kafka_TopicPartitionInfo_isr(parts[i], &nisr)
        partitions.append((rd_kafka_TopicPartitionInfo_partition(parts[i]),
                           _node(rd_kafka_TopicPartitionInfo_leader(parts[i])),
                           _nodes(rep, nrep), _nodes(isr, nisr)))
    cdef const rd_kafka_Uuid_t *uid = rd_kafka_TopicDescription_topic_id(t)
    cdef const rd_kafka_AclOperation_t *ops = rd_kafka_TopicDescription_authorized_operations(t, &nops)
    return (_cstr(rd_kafka_TopicDescription_name(t)),
            (rd_kafka_Uuid_most_significant_bits(uid), rd_kafka_Uuid_least_significant_bits(uid)),
            bool(rd_kafka_TopicDescription_is_internal(t)), partitions, _operations(ops, nops))


cdef object _admin_result(rd_kafka_event_t *ev):
    """The plain-data result of one admin result event (the shapes confluent_binding.admin's
    _results module reads)."""
    cdef int etype = rd_kafka_event_type(ev)
    cdef size_t i, n = 0
    # (a result array is fetched before its count n is read: C leaves argument order open)
    cdef const rd_kafka_topic_result_t **topics
    cdef const rd_kafka_ConfigResource_t **resources
    cdef const rd_kafka_group_result_t **groups_res
    if etype == RD_KAFKA_EVENT_CREATETOPICS_RESULT:
        topics = rd_kafka_CreateTopics_result_topics(rd_kafka_event_CreateTopics_result(ev), &n)
        return _topic_results(topics, n)
    if etype == RD_KAFKA_EVENT_DELETETOPICS_RESULT:
        topics = rd_kafka_DeleteTopics_result_topics(rd_kafka_event_DeleteTopics_result(ev), &n)
        return _topic_results(topics, n)
    if etype == RD_KAFKA_EVENT_CREATEPARTITIONS_RESULT:
        topics = rd_kafka_CreatePartitions_result_topics(
            rd_kafka_event_CreatePartitions_result(ev), &n)
        return _topic_results(topics, n)
    if etype == RD_KAFKA_EVENT_DESCRIBECONFIGS_RESULT:
        resources = rd_kafka_DescribeConfigs_result_resources(
            rd_kafka_event_DescribeConfigs_result(ev), &n)
        return _config_results(resources, n)
    if etype == RD_KAFKA_EVENT_ALTERCONFIGS_RESULT:
        resources = rd_kafka_AlterConfigs_result_resources(
            rd_kafka_event_AlterConfigs_result(ev), &n)
        return _config_results(resources, n)
    if etype == RD_KAFKA_EVENT_INCREMENTALALTERCONFIGS_RESULT:
        resources = rd_kafka_IncrementalAlterConfigs_result_resources(
            rd_kafka_event_IncrementalAlterConfigs_result(ev), &n)
        return _config_results(resources, n)
    if etype == RD_KAFKA_EVENT_CREATEACLS_RESULT:
        acls = rd_kafka_CreateAcls_result_acls(rd_kafka_event_CreateAcls_result(ev), &n)
        return [_error_from(rd_kafka_acl_result_error(acls[i])) for i in range(n)]
    if etype == RD_KAFKA_EVENT_DESCRIBEACLS_RESULT:
        found = rd_kafka_DescribeAcls_result_acls(rd_kafka_event_DescribeAcls_result(ev), &n)
        return [_acl(found[i]) for i in range(n)]
    if etype == RD_KAFKA_EVENT_DELETEACLS_RESULT:
        return _deleted_acls(ev)
    if etype == RD_KAFKA_EVENT_LISTCONSUMERGROUPS_RESULT:
        return _listed_groups(ev)
    if etype == RD_KAFKA_EVENT_DESCRIBECONSUMERGROUPS_RESULT:
        groups = rd_kafka_DescribeConsumerGroups_result_groups(
            rd_kafka_event_DescribeConsumerGroups_result(ev), &n)
        return [_group_description(groups[i]) for i in range(n)]
    if etype == RD_KAFKA_EVENT_DELETEGROUPS_RESULT:
        groups_res = rd_kafka_DeleteGroups_result_groups(rd_kafka_event_DeleteGroups_result(ev), &n)
        return _group_results(groups_res, n, False)
    if etype == RD_KAFKA_EVENT_LISTCONSUMERGROUPOFFSETS_RESULT:
        groups_res = rd_kafka_ListConsumerGroupOffsets_result_groups(
            rd_kafka_event_ListConsumerGroupOffsets_result(ev), &n)
        return _group_results(groups_res, n, True)
    if etype == RD_KAFKA_EVENT_ALTERCONSUMERGROUPOFFSETS_RESULT:
        groups_res = rd_kafka_AlterConsumerGroupOffsets_result_groups(
            rd_kafka_event_AlterConsumerGroupOffsets_result(ev), &n)
        return _group_results(groups_res, n, True)
    if etype == RD_KAFKA_EVENT_DESCRIBETOPICS_RESULT:
        described = rd_kafka_DescribeTopics_result_topics(
            rd_kafka_event_DescribeTopics_result(ev), &n)
        return [_topic_description(described[i]) for i in range(n)]
    if etype == RD_KAFKA_EVENT_DESCRIBECLUSTER_RESULT:
        return _described_cluster(ev)
    if etype == RD_KAFKA_EVENT_LISTOFFSETS_RESULT:
        return _listed_offsets(ev)
    if etype == RD_KAFKA_EVENT_DELETERECORDS_RESULT:
        return [(tp.topic, tp.partition, tp.error, tp.offset) for tp in _parts_to_py(
            rd_kafka_DeleteRecords_result_offsets(rd_kafka_event_DeleteRecords_result(ev)))]
    if etype == RD_KAFKA_EVENT_DESCRIBEUSERSCRAMCREDENTIALS_RESULT:
        return _described_scram(ev)
    if etype == RD_KAFKA_EVENT_ALTERUSERSCRAMCREDENTIALS_RESULT:
        responses = rd_kafka_AlterUserScramCredentials_result_responses(
            rd_kafka_event_AlterUserScramCredentials_result(ev), &n)
        return [(_cstr(rd_kafka_AlterUserScramCredentials_result_response_user(responses[i])),
                 _error_from(rd_kafka_AlterUserScramCredentials_result_response_error(responses[i])))
                for i in range(n)]
    if etype == RD_KAFKA_EVENT_ELECTLEADERS_RESULT:
        return _elected(ev)
    raise RuntimeError("unexpected admin result event type %d" % etype)


cdef list _deleted_acls(rd_kafka_event_t *ev):
    cdef size_t i, j, n = 0, m
    cdef const rd_kafka_DeleteAcls_result_response_t **resp = rd_kafka_DeleteAcls_result_responses(
        rd_kafka_event_DeleteAcls_result(ev), &n)
    cdef const rd_kafka_AclBinding_t **matching
    cdef list out = []
    for i in range(n):
        err = _error_from(rd_kafka_DeleteAcls_result_response_error(resp[i]))
        if err is not None:
            out.append(err)
            continue
        m = 0
        matching = rd_kafka_DeleteAcls_result_response_matching_acls(resp[i], &m)
        out.append([_acl(matching[j]) for j in range(m)])
    return out


cdef tuple _listed_groups(rd_kafka_event_t *ev):
    cdef size_t i, n = 0, ne = 0
    cdef const rd_kafka_ListConsumerGroups_result_t *res = rd_kafka_event_ListConsumerGroups_result(ev)
    cdef const rd_kafka_ConsumerGroupListing_t **valid = rd_kafka_ListConsumerGroups_result_valid(res, &n)
    cdef const rd_kafka_error_t **errors = rd_kafka_ListConsumerGroups_result_errors(res, &ne)
    return ([(_cstr(rd_kafka_ConsumerGroupListing_group_id(valid[i])),
              bool(rd_kafka_ConsumerGroupListing_is_simple_consumer_group(valid[i])),
              <int>rd_kafka_ConsumerGroupListing_state(valid[i]),
              <int>rd_kafka_ConsumerGroupListing_type(valid[i])) for i in range(n)],
            [_error_from(errors[i]) for i in range(ne)])


cdef tuple _described_cluster(rd_kafka_event_t *ev):
    cdef size_t n = 0, nops = 0
    cdef const rd_kafka_DescribeCluster_result_t *res = rd_kafka_event_DescribeCluster_result(ev)
    cdef const rd_kafka_Node_t **nodes = rd_kafka_DescribeCluster_result_nodes(res, &n)
    cdef const rd_kafka_AclOperation_t *ops = \
        rd_kafka_DescribeCluster_result_authorized_operations(res, &nops)
    return (_str_or_none(rd_kafka_DescribeCluster_result_cluster_id(res)),
            _node(rd_kafka_DescribeCluster_result_controller(res)), _nodes(nodes, n),
            _operations(ops, nops))


cdef list _listed_offsets(rd_kafka_event_t *ev):
    cdef size_t i, n = 0
    cdef const rd_kafka_ListOffsetsResultInfo_t **infos = rd_kafka_ListOffsets_result_infos(
        rd_kafka_event_ListOffsets_result(ev), &n)
    cdef const rd_kafka_topic_partition_t *tp
    cdef list out = []
    for i in range(n):
        tp = rd_kafka_ListOffsetsResultInfo_topic_partition(infos[i])
        out.append((_cstr(tp.topic), tp.partition, _kafka_error(tp.err), tp.offset,
                    rd_kafka_ListOffsetsResultInfo_timestamp(infos[i]),
                    rd_kafka_topic_partition_get_leader_epoch(tp)))
    return out


cdef list _described_scram(rd_kafka_event_t *ev):
    cdef size_t i, j, n = 0
    cdef const rd_kafka_UserScramCredentialsDescription_t **ds = \
        rd_kafka_DescribeUserScramCredentials_result_descriptions(
            rd_kafka_event_DescribeUserScramCredentials_result(ev), &n)
    cdef const rd_kafka_ScramCredentialInfo_t *info
    cdef list out = []
    for i in range(n):
        infos = []
        for j in range(rd_kafka_UserScramCredentialsDescription_scramcredentialinfo_count(ds[i])):
            info = rd_kafka_UserScramCredentialsDescription_scramcredentialinfo(ds[i], j)
            infos.append((<int>rd_kafka_ScramCredentialInfo_mechanism(info),
                          rd_kafka_ScramCredentialInfo_iterations(info)))
        out.append((_cstr(rd_kafka_UserScramCredentialsDescription_user(ds[i])),
                    _error_from(rd_kafka_UserScramCredentialsDescription_error(ds[i])), infos))
    return out


cdef list _elected(rd_kafka_event_t *ev):
    cdef size_t i, n = 0
    cdef const rd_kafka_topic_partition_result_t **res = rd_kafka_ElectLeaders_result_partitions(
        rd_kafka_event_ElectLeaders_result(ev), &n)
    cdef const rd_kafka_topic_partition_t *tp
    cdef list out = []
    for i in range(n):
        tp = rd_kafka_topic_partition_result_partition(res[i])
        out.append((_cstr(tp.topic), tp.partition, tp.offset,
                    _error_from(rd_kafka_topic_partition_result_error(res[i]))))
    return out


cdef int _check_errstr(rd_kafka_resp_err_t err, char *errstr) except -1:
    """An argument librdkafka refused: ValueError with its reason (as confluent-kafka)."""
    if err:
        raise ValueError(_cstr(errstr))
    return 0


cdef int32_t *_broker_ids(list ids) except NULL:
    cdef int32_t *out = <int32_t *>malloc(max(len(ids), 1) * sizeof(int32_t))
    if out == NULL:
        raise MemoryError()
    for i, b in enumerate(ids):
        out[i] = b
    return out


cdef class _CArray:
    """Owns one malloc'ed array of librdkafka request objects, freed with their destroy call."""
    cdef void **ptr
    cdef size_t n
    cdef void (*destroy_array)(void **, size_t) noexcept nogil

    def __dealloc__(self):
        if self.ptr != NULL:
            if self.destroy_array != NULL:
                self.destroy_array(self.ptr, self.n)
            free(self.ptr)


cdef _CArray _carray(size_t size, void (*destroy_array)(void **, size_t) noexcept nogil):
    cdef _CArray a = _CArray.__new__(_CArray)
    a.ptr = <void **>malloc(max(size, 1) * sizeof(void *))
    if a.ptr == NULL:
        raise MemoryError()
    a.destroy_array = destroy_array
    return a


cdef class _ResultQueue:
    """Owns the AdminClient's private admin result queue (an rd_kafka_queue_t)."""
    cdef rd_kafka_queue_t *ptr

    cdef void free(self) noexcept:
        if self.ptr != NULL:
            rd_kafka_queue_destroy(self.ptr)
            self.ptr = NULL

    def __dealloc__(self):
        self.free()


@cython.no_gc_clear
cdef class _AdminClientImpl(_Handle):
    """The compiled half of AdminClient (confluent_binding.admin): one rd_kafka_t, its main
    queue (served by poll()) and an admin result queue (served by the client's thread)."""
    cdef _ResultQueue _results
    cdef dict _in_flight_requests     # request id -> the request's Future
    cdef Py_ssize_t _next_id
    cdef bint _stopped                # close() began: the result thread ends

    def __init__(self, *args, **kwargs):
        if self._rk != NULL:
            raise RuntimeError("AdminClient is already initialised")
        conf = _merge_conf(args, kwargs)
        self._in_flight_requests = {}
        self._open(RD_KAFKA_PRODUCER, self._new_conf(conf, 0))
        self._queue = rd_kafka_queue_get_main(self._rk)
        self._results = _ResultQueue.__new__(_ResultQueue)
        self._results.ptr = rd_kafka_queue_new(self._rk)

    # -- requests --

    cdef rd_kafka_AdminOptions_t *_options(self, rd_kafka_admin_op_t api, dict opts) except NULL:
        """AdminOptions for ``api`` from the checked keyword arguments; librdkafka's range
        errors become ValueError with its reason."""
        cdef char errstr[512]
        self._ensure_open()
        cdef rd_kafka_AdminOptions_t *o = rd_kafka_AdminOptions_new(self._rk, api)
        cdef int states[8]
        cdef int n
        errstr[0] = 0
        try:
            if "request_timeout" in opts:
                _check_errstr(rd_kafka_AdminOptions_set_request_timeout(
                    o, opts["request_timeout"], errstr, sizeof(errstr)), errstr)
            if "operation_timeout" in opts:
                _check_errstr(rd_kafka_AdminOptions_set_operation_timeout(
                    o, opts["operation_timeout"], errstr, sizeof(errstr)), errstr)
            if "validate_only" in opts:
                _check_errstr(rd_kafka_AdminOptions_set_validate_only(
                    o, opts["validate_only"], errstr, sizeof(errstr)), errstr)
            if "broker" in opts:
                _check_errstr(rd_kafka_AdminOptions_set_broker(
                    o, opts["broker"], errstr, sizeof(errstr)), errstr)
            if "require_stable" in opts:
                _check_error(rd_kafka_AdminOptions_set_require_stable_offsets(
                    o, opts["require_stable"]))
            if "include_authorized_operations" in opts:
                _check_error(rd_kafka_AdminOptions_set_include_authorized_operations(
                    o, opts["include_authorized_operations"]))
            if "isolation_level" in opts:
                _check_error(rd_kafka_AdminOptions_set_isolation_level(o, opts["isolation_level"]))
            if "states" in opts:
                n = 0
                for s in opts["states"][:8]:
                    states[n] = s
                    n += 1
                _check_error(rd_kafka_AdminOptions_set_match_consumer_group_states(o, states, n))
            if "types" in opts:
                n = 0
                for s in opts["types"][:8]:
                    states[n] = s
                    n += 1
                _check_error(rd_kafka_AdminOptions_set_match_consumer_group_types(o, states, n))
        except BaseException:
            rd_kafka_AdminOptions_destroy(o)
            raise
        return o

    cdef rd_kafka_queue_t *_track(self, rd_kafka_AdminOptions_t *o, object future) except NULL:
        """Register ``future`` as the result of the request about to be sent with ``o``;
        returns the queue its result goes to."""
        self._ensure_open()
        self._next_id += 1
        self._in_flight_requests[self._next_id] = future
        rd_kafka_AdminOptions_set_opaque(o, <void *><intptr_t>self._next_id)
        return self._results.ptr

    def _create_topics(self, list specs, future, dict opts):
        cdef char errstr[512]
        cdef size_t i
        cdef int32_t *ids
        cdef rd_kafka_NewTopic_t *t
        cdef _CArray a = _carray(len(specs), <void (*)(void **, size_t) noexcept nogil>
                                 rd_kafka_NewTopic_destroy_array)
        for name, nparts, rf, assignment, config in specs:
            errstr[0] = 0
            t = rd_kafka_NewTopic_new(name.encode(), nparts, rf, errstr, sizeof(errstr))
            if t == NULL:
                raise KafkaException(KafkaError(RD_KAFKA_RESP_ERR__INVALID_ARG, _cstr(errstr)))
            a.ptr[a.n] = t
            a.n += 1
            for i, replicas in enumerate(assignment or ()):
                ids = _broker_ids(replicas)
                try:
                    _check_errstr(rd_kafka_NewTopic_set_replica_assignment(
                        t, i, ids, len(replicas), errstr, sizeof(errstr)), errstr)
                finally:
                    free(ids)
            for k, v in config:
                _check(rd_kafka_NewTopic_set_config(t, k.encode(), v.encode()),
                       "Failed to set config %s" % k)
        self._send(RD_KAFKA_ADMIN_OP_CREATETOPICS, a, future, opts)

    def _delete_topics(self, list topics, future, dict opts):
        cdef _CArray a = _carray(len(topics), <void (*)(void **, size_t) noexcept nogil>
                                 rd_kafka_DeleteTopic_destroy_array)
        for name in topics:
            a.ptr[a.n] = rd_kafka_DeleteTopic_new(name.encode())
            a.n += 1
        self._send(RD_KAFKA_ADMIN_OP_DELETETOPICS, a, future, opts)

    def _create_partitions(self, list specs, future, dict opts):
        cdef char errstr[512]
        cdef int32_t *ids
        cdef rd_kafka_NewPartitions_t *p
        cdef _CArray a = _carray(len(specs), <void (*)(void **, size_t) noexcept nogil>
                                 rd_kafka_NewPartitions_destroy_array)
        for name, total, assignment in specs:
            errstr[0] = 0
            if total < 0:
                raise ValueError("new_total_count must be a positive number")
            p = rd_kafka_NewPartitions_new(name.encode(), total, errstr, sizeof(errstr))
            if p == NULL:
                raise KafkaException(KafkaError(RD_KAFKA_RESP_ERR__INVALID_ARG, _cstr(errstr)))
            a.ptr[a.n] = p
            a.n += 1
            for i, replicas in enumerate(assignment or ()):
                ids = _broker_ids(replicas)
                try:
                    _check_errstr(rd_kafka_NewPartitions_set_replica_assignment(
                        p, i, ids, len(replicas), errstr, sizeof(errstr)), errstr)
                finally:
                    free(ids)
        self._send(RD_KAFKA_ADMIN_OP_CREATEPARTITIONS, a, future, opts)

    cdef _CArray _config_resources(self, list resources):
        cdef _CArray a = _carray(len(resources), <void (*)(void **, size_t) noexcept nogil>
                                 rd_kafka_ConfigResource_destroy_array)
        for r in resources:
            a.ptr[a.n] = rd_kafka_ConfigResource_new(r[0], (<str>r[1]).encode())
            if a.ptr[a.n] == NULL:
                raise ValueError("Invalid config resource %r" % (r[:2],))
            a.n += 1
        return a

    def _describe_configs(self, list resources, future, dict opts):
        self._send(RD_KAFKA_ADMIN_OP_DESCRIBECONFIGS, self._config_resources(resources), future,
                   opts)

    def _alter_configs(self, list resources, future, dict opts):
        cdef _CArray a = self._config_resources(resources)
        for i, r in enumerate(resources):
            for k, v in r[2]:
                _check(rd_kafka_ConfigResource_set_config(<rd_kafka_ConfigResource_t *>a.ptr[i],
                                                          k.encode(), v.encode()),
                       "Failed to set config %s" % k)
        self._send(RD_KAFKA_ADMIN_OP_ALTERCONFIGS, a, future, opts)

    def _incremental_alter_configs(self, list resources, future, dict opts):
        cdef _CArray a = self._config_resources(resources)
        cdef bytes value
        for i, r in enumerate(resources):
            for name, op, v in r[2]:
                value = None if v is None else v.encode()
                _check_error(rd_kafka_ConfigResource_add_incremental_config(
                    <rd_kafka_ConfigResource_t *>a.ptr[i], name.encode(), op,
                    NULL if value is None else <const char *>value))
        self._send(RD_KAFKA_ADMIN_OP_INCREMENTALALTERCONFIGS, a, future, opts)

    cdef rd_kafka_AclBinding_t *_acl_binding(self, tuple t, bint is_filter) except NULL:
        cdef char errstr[512]
        cdef rd_kafka_AclBinding_t *b
        restype, name, pattern, principal, host, op, perm = t
        cdef bytes bname = None if name is None else name.encode()
        cdef bytes bprincipal = None if principal is None else principal.encode()
        cdef bytes bhost = None if host is None else host.encode()
        errstr[0] = 0
        if is_filter:
            b = rd_kafka_AclBindingFilter_new(
                restype, NULL if bname is None else <const char *>bname, pattern,
                NULL if bprincipal is None else <const char *>bprincipal,
                NULL if bhost is None else <const char *>bhost, op, perm, errstr, sizeof(errstr))
        else:
            b = rd_kafka_AclBinding_new(
                restype, NULL if bname is None else <const char *>bname, pattern,
                NULL if bprincipal is None else <const char *>bprincipal,
                NULL if bhost is None else <const char *>bhost, op, perm, errstr, sizeof(errstr))
        if b == NULL:
            raise ValueError(_cstr(errstr))
        return b

    def _create_acls(self, list acls, future, dict opts):
        cdef _CArray a = _carray(len(acls), <void (*)(void **, size_t) noexcept nogil>
                                 rd_kafka_AclBinding_destroy_array)
        for t in acls:
            a.ptr[a.n] = self._acl_binding(t, False)
            a.n += 1
        self._send(RD_KAFKA_ADMIN_OP_CREATEACLS, a, future, opts)

    def _describe_acls(self, tuple acl_filter, future, dict opts):
        cdef rd_kafka_AdminOptions_t *o = self._options(RD_KAFKA_ADMIN_OP_DESCRIBEACLS, opts)
        cdef rd_kafka_AclBinding_t *f = NULL
        try:
            f = self._acl_binding(acl_filter, True)
            rd_kafka_DescribeAcls(self._rk, f, o, self._track(o, future))
        finally:
            rd_kafka_AdminOptions_destroy(o)
            if f != NULL:
                rd_kafka_AclBinding_destroy(f)

    def _delete_acls(self, list filters, future, dict opts):
        cdef _CArray a = _carray(len(filters), <void (*)(void **, size_t) noexcept nogil>
                                 rd_kafka_AclBinding_destroy_array)
        for t in filters:
            a.ptr[a.n] = self._acl_binding(t, True)
            a.n += 1
        self._send(RD_KAFKA_ADMIN_OP_DELETEACLS, a, future, opts)

    def _list_consumer_groups(self, future, dict opts):
        self._send(RD_KAFKA_ADMIN_OP_LISTCONSUMERGROUPS, None, future, opts)

    def _describe_consumer_groups(self, list groups, future, dict opts):
        self._send_names(RD_KAFKA_ADMIN_OP_DESCRIBECONSUMERGROUPS, groups, future, opts)

    def _delete_consumer_groups(self, list groups, future, dict opts):
        cdef _CArray a = _carray(len(groups), <void (*)(void **, size_t) noexcept nogil>
                                 rd_kafka_DeleteGroup_destroy_array)
        for g in groups:
            a.ptr[a.n] = rd_kafka_DeleteGroup_new((<str>g).encode())
            a.n += 1
        self._send(RD_KAFKA_ADMIN_OP_DELETEGROUPS, a, future, opts)

    def _list_consumer_group_offsets(self, str group, parts, future, dict opts):
        cdef _PartList pl = None if parts is None else _parts_list(parts)
        cdef rd_kafka_ListConsumerGroupOffsets_t *r = rd_kafka_ListConsumerGroupOffsets_new(
            group.encode(), NULL if pl is None else pl.ptr)
        cdef rd_kafka_AdminOptions_t *o = NULL
        try:
            o = self._options(RD_KAFKA_ADMIN_OP_LISTCONSUMERGROUPOFFSETS, opts)
            rd_kafka_ListConsumerGroupOffsets(self._rk, &r, 1, o, self._track(o, future))
        finally:
            if o != NULL:
                rd_kafka_AdminOptions_destroy(o)
            rd_kafka_ListConsumerGroupOffsets_destroy(r)

    def _alter_consumer_group_offsets(self, str group, list parts, future, dict opts):
        cdef _PartList pl = _parts_list(parts)
        cdef rd_kafka_AlterConsumerGroupOffsets_t *r = rd_kafka_AlterConsumerGroupOffsets_new(
            group.encode(), pl.ptr)
        cdef rd_kafka_AdminOptions_t *o = NULL
        try:
            o = self._options(RD_KAFKA_ADMIN_OP_ALTERCONSUMERGROUPOFFSETS, opts)
            rd_kafka_AlterConsumerGroupOffsets(self._rk, &r, 1, o, self._track(o, future))
        finally:
            if o != NULL:
                rd_kafka_AdminOptions_destroy(o)
            rd_kafka_AlterConsumerGroupOffsets_destroy(r)

    def _describe_topics(self, list topics, future, dict opts):
        cdef list encoded = [t.encode() for t in topics]
        cdef const char **names = <const char **>malloc(max(len(encoded), 1) * sizeof(char *))
        cdef rd_kafka_TopicCollection_t *tc = NULL
        cdef rd_kafka_AdminOptions_t *o = NULL
        try:
            for i, b in enumerate(encoded):
                names[i] = <const char *>(<bytes>b)
            tc = rd_kafka_TopicCollection_of_topic_names(names, len(encoded))
            o = self._options(RD_KAFKA_ADMIN_OP_DESCRIBETOPICS, opts)
            rd_kafka_DescribeTopics(self._rk, tc, o, self._track(o, future))
        finally:
            if o != NULL:
                rd_kafka_AdminOptions_destroy(o)
            if tc != NULL:
                rd_kafka_TopicCollection_destroy(tc)
            free(names)

    def _describe_cluster(self, future, dict opts):
        self._send(RD_KAFKA_ADMIN_OP_DESCRIBECLUSTER, None, future, opts)

    def _list_offsets(self, list parts, future, dict opts):
        cdef _PartList pl = _parts_list(parts)
        cdef rd_kafka_AdminOptions_t *o = self._options(RD_KAFKA_ADMIN_OP_LISTOFFSETS, opts)
        try:
            rd_kafka_ListOffsets(self._rk, pl.ptr, o, self._track(o, future))
        finally:
            rd_kafka_AdminOptions_destroy(o)

    def _delete_records(self, list parts, future, dict opts):
        cdef _PartList pl = _parts_list(parts)
        cdef rd_kafka_DeleteRecords_t *r = rd_kafka_DeleteRecords_new(pl.ptr)
        cdef rd_kafka_AdminOptions_t *o = NULL
        try:
            o = self._options(RD_KAFKA_ADMIN_OP_DELETERECORDS, opts)
            rd_kafka_DeleteRecords(self._rk, &r, 1, o, self._track(o, future))
        finally:
            if o != NULL:
                rd_kafka_AdminOptions_destroy(o)
            rd_kafka_DeleteRecords_destroy(r)

    def _elect_leaders(self, int election_type, parts, future, dict opts):
        cdef _PartList pl = None if parts is None else _parts_list(parts)
        cdef rd_kafka_ElectLeaders_t *r = rd_kafka_ElectLeaders_new(
            election_type, NULL if pl is None else pl.ptr)
        cdef rd_kafka_AdminOptions_t *o = NULL
        try:
            o = self._options(RD_KAFKA_ADMIN_OP_ELECTLEADERS, opts)
            rd_kafka_ElectLeaders(self._rk, r, o, self._track(o, future))
        finally:
            if o != NULL:
                rd_kafka_AdminOptions_destroy(o)
            rd_kafka_ElectLeaders_destroy(r)

    def _describe_user_scram_credentials(self, users, future, dict opts):
        self._send_names(RD_KAFKA_ADMIN_OP_DESCRIBEUSERSCRAMCREDENTIALS, users or [], future, opts)

    def _alter_user_scram_credentials(self, list alterations, future, dict opts):
        cdef _CArray a = _carray(len(alterations), <void (*)(void **, size_t) noexcept nogil>
                                 rd_kafka_UserScramCredentialAlteration_destroy_array)
        cdef bytes password, salt
        for user, mechanism, iterations, password, salt in alterations:
            if iterations is None:
                a.ptr[a.n] = rd_kafka_UserScramCredentialDeletion_new(user.encode(), mechanism)
            else:
                a.ptr[a.n] = rd_kafka_UserScramCredentialUpsertion_new(
                    user.encode(), mechanism, iterations,
                    <const unsigned char *>PyBytes_AS_STRING(password), PyBytes_GET_SIZE(password),
                    NULL if salt is None else <const unsigned char *>PyBytes_AS_STRING(salt),
                    0 if salt is None else PyBytes_GET_SIZE(salt))
            a.n += 1
        self._send(RD_KAFKA_ADMIN_OP_ALTERUSERSCRAMCREDENTIALS, a, future, opts)

    cdef int _send(self, rd_kafka_admin_op_t api, _CArray a, future, dict opts) except -1:
        """Send a request whose objects are in ``a`` (None for the requests without any)."""
        cdef rd_kafka_AdminOptions_t *o = self._options(api, opts)
        cdef rd_kafka_queue_t *q
        cdef void **objs = NULL if a is None else a.ptr
        cdef size_t n = 0 if a is None else a.n
        try:
            q = self._track(o, future)
            if api == RD_KAFKA_ADMIN_OP_CREATETOPICS:
                rd_kafka_CreateTopics(self._rk, <rd_kafka_NewTopic_t **>objs, n, o, q)
            elif api == RD_KAFKA_ADMIN_OP_DELETETOPICS:
                rd_kafka_DeleteTopics(self._rk, <rd_kafka_DeleteTopic_t **>objs, n, o, q)
            elif api == RD_KAFKA_ADMIN_OP_CREATEPARTITIONS:
                rd_kafka_CreatePartitions(self._rk, <rd_kafka_NewPartitions_t **>objs, n, o, q)
            elif api == RD_KAFKA_ADMIN_OP_DESCRIBECONFIGS:
                rd_kafka_DescribeConfigs(self._rk, <rd_kafka_ConfigResource_t **>objs, n, o, q)
            elif api == RD_KAFKA_ADMIN_OP_ALTERCONFIGS:
                rd_kafka_AlterConfigs(self._rk, <rd_kafka_ConfigResource_t **>objs, n, o, q)
            elif api == RD_KAFKA_ADMIN_OP_INCREMENTALALTERCONFIGS:
                rd_kafka_IncrementalAlterConfigs(self._rk, <rd_kafka_ConfigResource_t **>objs, n,
                                                 o, q)
            elif api == RD_KAFKA_ADMIN_OP_CREATEACLS:
                rd_kafka_CreateAcls(self._rk, <rd_kafka_AclBinding_t **>objs, n, o, q)
            elif api == RD_KAFKA_ADMIN_OP_DELETEACLS:
                rd_kafka_DeleteAcls(self._rk, <rd_kafka_AclBindingFilter_t **>objs, n, o, q)
            elif api == RD_KAFKA_ADMIN_OP_DELETEGROUPS:
                rd_kafka_DeleteGroups(self._rk, <rd_kafka_DeleteGroup_t **>objs, n, o, q)
            elif api == RD_KAFKA_ADMIN_OP_ALTERUSERSCRAMCREDENTIALS:
                rd_kafka_AlterUserScramCredentials(
                    self._rk, <rd_kafka_UserScramCredentialAlteration_t **>objs, n, o, q)
            elif api == RD_KAFKA_ADMIN_OP_LISTCONSUMERGROUPS:
                rd_kafka_ListConsumerGroups(self._rk, o, q)
            elif api == RD_KAFKA_ADMIN_OP_DESCRIBECLUSTER:
                rd_kafka_DescribeCluster(self._rk, o, q)
        finally:
            rd_kafka_AdminOptions_destroy(o)
        return 0

    cdef int _send_names(self, rd_kafka_admin_op_t api, list names, future, dict opts) except -1:
        """Send a request that takes an array of C strings (groups, SCRAM users)."""
        cdef list encoded = [(<str>s).encode() for s in names]
        cdef const char **arr = <const char **>malloc(max(len(encoded), 1) * sizeof(char *))
        cdef rd_kafka_AdminOptions_t *o = NULL
        cdef rd_kafka_queue_t *q
        try:
            for i, b in enumerate(encoded):
                arr[i] = <const char *>(<bytes>b)
            o = self._options(api, opts)
            q = self._track(o, future)
            if api == RD_KAFKA_ADMIN_OP_DESCRIBECONSUMERGROUPS:
                rd_kafka_DescribeConsumerGroups(self._rk, arr, len(encoded), o, q)
            else:
                rd_kafka_DescribeUserScramCredentials(self._rk, arr, len(encoded), o, q)
        finally:
            if o != NULL:
                rd_kafka_AdminOptions_destroy(o)
            free(arr)
        return 0

    # -- results --

    def _serve_results(self, int timeout_ms):
        """Wait (GIL-free) up to ``timeout_ms`` for one admin result and complete its future.
        False once the client is closing: the result thread then ends."""
        cdef rd_kafka_event_t *ev
        cdef rd_kafka_queue_t *q
        if self._stopped or self._results is None or self._results.ptr == NULL:
            return False
        q = self._results.ptr
        with nogil:
            ev = rd_kafka_queue_poll(q, timeout_ms)
        if ev != NULL:
            try:
                self._complete(ev)
            finally:
                rd_kafka_event_destroy(ev)
        return not self._stopped

    cdef int _complete(self, rd_kafka_event_t *ev) except -1:
        fut = self._in_flight_requests.pop(<intptr_t>rd_kafka_event_opaque(ev), None)
        if fut is None:
            return 0
        cdef rd_kafka_resp_err_t err = rd_kafka_event_error(ev)
        if err:
            fut.set_exception(KafkaException(_kafka_error(err, rd_kafka_event_error_string(ev))))
            return 0
        try:
            result = _admin_result(ev)
        except BaseException as exc:
            fut.set_exception(exc)
        else:
            fut.set_result(result)
        return 0

    def _in_flight(self):
        """How many requests wait for their result."""
        return len(self._in_flight_requests) if self._in_flight_requests else 0

    def _stop_results(self):
        """Make the result thread end (it returns from its wait at once)."""
        self._stopped = True
        if self._results is not None and self._results.ptr != NULL:
            rd_kafka_queue_yield(self._results.ptr)

    def _close(self):
        """Free the client (after the result thread ended): requests still in flight fail."""
        self._stopped = True
        pending, self._in_flight_requests = self._in_flight_requests, {}
        if self._results is not None:
            self._results.free()
        if self._rk != NULL and not self._forget_if_forked():
            self._destroy()
        for fut in (pending or {}).values():
            if not fut.done():
                fut.set_exception(KafkaException(KafkaError(
                    RD_KAFKA_RESP_ERR__DESTROY, "AdminClient closed while the request was in flight")))

    def __dealloc__(self):
        # runs before _Handle's: the result queue must go before the rd_kafka_t
        if self._results is not None:
            self._results.free()

    # -- the rest of confluent-kafka's AdminClient --

    def poll(self, timeout=-1):
        """Serve error_cb, stats_cb, logger and oauth_cb events; wait up to ``timeout``
        seconds for the first. Returns the number of events served."""
        self._ensure_open()
        return self._serve_main(0 if timeout == 0 else _deadline(timeout), timeout == 0)

    cdef int _serve_main(self, double deadline, bint nowait) except -1:
        """Serve what the main queue holds; if nothing and not nowait, wait (GIL-free, in
        chunks, Ctrl-C between them) up to deadline."""
        cdef int served = 0
        cdef int wait
        cdef rd_kafka_event_t *ev
        cdef rd_kafka_queue_t *q = self._queue
        while self._exc is None and not self._evicted():
            ev = rd_kafka_queue_poll(q, 0)
            if ev == NULL:
                if served or nowait:
                    break
                wait = _chunk_ms(deadline)
                if wait == 0:
                    break
                self._users += 1
                with nogil:
                    ev = rd_kafka_queue_poll(q, wait)
                self._users -= 1
                if ev == NULL:
                    self._raise_pending()
                    PyErr_CheckSignals()
                    continue
            served += _serve_admin_event(self, ev)
        self._raise_pending()
        return served

    def __len__(self):
        """Requests and messages librdkafka still has queued or in flight."""
        self._ensure_open()
        return rd_kafka_outq_len(self._rk)

    def _list_groups(self, group=None, timeout=-1):
        """Groups and members from the legacy ListGroups/DescribeGroups (list_groups())."""
        from confluent_binding.admin._metadata import BrokerMetadata, GroupMember, GroupMetadata
        self._ensure_open()
        cdef const rd_kafka_group_list *gl = NULL
        cdef rd_kafka_resp_err_t err
        cdef int tmout = _timeout_ms(timeout)
        cdef bytes g = None if group is None else (<str>group).encode()
        cdef const char *cg = NULL if g is None else <const char *>g
        cdef int i, j
        cdef const rd_kafka_group_info *gi
        cdef const rd_kafka_group_member_info *mi
        self._users += 1
        with nogil:
            err = rd_kafka_list_groups(self._rk, cg, &gl, tmout)
        self._users -= 1
        _check(err, "Failed to list groups")
        out = []
        try:
            for i in range(gl.group_cnt):
                gi = &gl.groups[i]
                gm = GroupMetadata()
                b = BrokerMetadata()
                b.id, b.host, b.port = gi.broker.id, _str_or_none(gi.broker.host), gi.broker.port
                gm.broker = b
                gm.id = _str_or_none(gi.group)
                gm.error = _kafka_error(gi.err)
                gm.state = _str_or_none(gi.state)
                gm.protocol_type = _str_or_none(gi.protocol_type)
                gm.protocol = _str_or_none(gi.protocol)
                for j in range(gi.member_cnt):
                    mi = &gi.members[j]
                    m = GroupMember()
                    m.id = _str_or_none(mi.member_id)
                    m.client_id = _str_or_none(mi.client_id)
                    m.client_host = _str_or_none(mi.client_host)
                    m.metadata = PyBytes_FromStringAndSize(<const char *>mi.member_metadata,
                                                           mi.member_metadata_size)
                    m.assignment = PyBytes_FromStringAndSize(<const char *>mi.member_assignment,
                                                             mi.member_assignment_size)
                    gm.members.append(m)
                out.append(gm)
        finally:
            rd_kafka_group_list_destroy(gl)
        return out


cdef _PartList _parts_list(list parts):
    """A partition list from (topic, partition, offset) tuples."""
    cdef _PartList pl = _PartList.new(len(parts))
    cdef rd_kafka_topic_partition_t *c
    for topic, partition, offset in parts:
        c = rd_kafka_topic_partition_list_add(pl.ptr, (<str>topic).encode(), partition)
        c.offset = offset
    return pl


cdef int _serve_admin_event(_Handle h, rd_kafka_event_t *ev) except -1:
    """Serve one main-queue event of an AdminClient (error, log, stats, oauth) and destroy it."""
    cdef const char *fac
    cdef const char *text
    cdef int level
    cdef int etype = rd_kafka_event_type(ev)
    try:
        if etype == RD_KAFKA_EVENT_ERROR:
            h._serve_error(rd_kafka_event_error(ev), rd_kafka_event_error_string(ev),
                           rd_kafka_event_error_is_fatal(ev))
        elif etype == RD_KAFKA_EVENT_LOG:
            if rd_kafka_event_log(ev, &fac, &text, &level) == 0:
                h._serve_log(level, fac, text)
        elif etype == RD_KAFKA_EVENT_STATS:
            h._serve_stats(rd_kafka_event_stats(ev))
        elif etype == RD_KAFKA_EVENT_OAUTHBEARER_TOKEN_REFRESH:
            h._serve_oauth(rd_kafka_event_config_string(ev))
    except BaseException as exc:
        h._stash(exc)
    finally:
        rd_kafka_event_destroy(ev)
    return 1
