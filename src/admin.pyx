# AdminClient (compiled half): requests built on librdkafka's Admin API from plain Python data
# already checked by confluent_binding.admin, sent with a private result queue; the client's
# result thread waits on that queue without the GIL (_serve_results) and completes each request's
# concurrent.futures.Future. error_cb, stats_cb and logger events stay on the main queue and are
# served by poll(); with OAUTHBEARER, construction serves oauth_cb until the first token
# (handle.pyx).

from includes.rdkafka cimport (
    RD_KAFKA_PRODUCER,
    RD_KAFKA_RESP_ERR__DESTROY,
    rd_kafka_error_destroy,
    rd_kafka_error_string,
    rd_kafka_error_t,
    rd_kafka_event_destroy,
    rd_kafka_event_error,
    rd_kafka_event_error_string,
    rd_kafka_event_opaque,
    rd_kafka_event_t,
    rd_kafka_group_info,
    rd_kafka_group_list,
    rd_kafka_group_list_destroy,
    rd_kafka_group_member_info,
    rd_kafka_list_groups,
    rd_kafka_outq_len,
    rd_kafka_queue_destroy,
    rd_kafka_queue_get_main,
    rd_kafka_queue_new,
    rd_kafka_queue_poll,
    rd_kafka_queue_t,
    rd_kafka_queue_yield,
    rd_kafka_resp_err_t,
    rd_kafka_topic_partition_list_add,
    rd_kafka_topic_partition_t,
)
from includes.rdkafka_admin cimport (
    RD_KAFKA_ADMIN_OP_ALTERCONFIGS,
    RD_KAFKA_ADMIN_OP_ALTERCONSUMERGROUPOFFSETS,
    RD_KAFKA_ADMIN_OP_ALTERUSERSCRAMCREDENTIALS,
    RD_KAFKA_ADMIN_OP_CREATEACLS,
    RD_KAFKA_ADMIN_OP_CREATEPARTITIONS,
    RD_KAFKA_ADMIN_OP_CREATETOPICS,
    RD_KAFKA_ADMIN_OP_DELETEACLS,
    RD_KAFKA_ADMIN_OP_DELETEGROUPS,
    RD_KAFKA_ADMIN_OP_DELETERECORDS,
    RD_KAFKA_ADMIN_OP_DELETETOPICS,
    RD_KAFKA_ADMIN_OP_DESCRIBEACLS,
    RD_KAFKA_ADMIN_OP_DESCRIBECLUSTER,
    RD_KAFKA_ADMIN_OP_DESCRIBECONFIGS,
    RD_KAFKA_ADMIN_OP_DESCRIBECONSUMERGROUPS,
    RD_KAFKA_ADMIN_OP_DESCRIBETOPICS,
    RD_KAFKA_ADMIN_OP_DESCRIBEUSERSCRAMCREDENTIALS,
    RD_KAFKA_ADMIN_OP_ELECTLEADERS,
    RD_KAFKA_ADMIN_OP_INCREMENTALALTERCONFIGS,
    RD_KAFKA_ADMIN_OP_LISTCONSUMERGROUPOFFSETS,
    RD_KAFKA_ADMIN_OP_LISTCONSUMERGROUPS,
    RD_KAFKA_ADMIN_OP_LISTOFFSETS,
    rd_kafka_AclBindingFilter_new,
    rd_kafka_AclBindingFilter_t,
    rd_kafka_AclBinding_destroy,
    rd_kafka_AclBinding_destroy_array,
    rd_kafka_AclBinding_new,
    rd_kafka_AclBinding_t,
    rd_kafka_AdminOptions_destroy,
    rd_kafka_AdminOptions_new,
    rd_kafka_AdminOptions_set_broker,
    rd_kafka_AdminOptions_set_include_authorized_operations,
    rd_kafka_AdminOptions_set_isolation_level,
    rd_kafka_AdminOptions_set_match_consumer_group_states,
    rd_kafka_AdminOptions_set_match_consumer_group_types,
    rd_kafka_AdminOptions_set_opaque,
    rd_kafka_AdminOptions_set_operation_timeout,
    rd_kafka_AdminOptions_set_request_timeout,
    rd_kafka_AdminOptions_set_require_stable_offsets,
    rd_kafka_AdminOptions_set_validate_only,
    rd_kafka_AdminOptions_t,
    rd_kafka_AlterConfigs,
    rd_kafka_AlterConsumerGroupOffsets,
    rd_kafka_AlterConsumerGroupOffsets_destroy,
    rd_kafka_AlterConsumerGroupOffsets_new,
    rd_kafka_AlterConsumerGroupOffsets_t,
    rd_kafka_AlterUserScramCredentials,
    rd_kafka_ConfigResource_add_incremental_config,
    rd_kafka_ConfigResource_destroy_array,
    rd_kafka_ConfigResource_new,
    rd_kafka_ConfigResource_set_config,
    rd_kafka_ConfigResource_t,
    rd_kafka_CreateAcls,
    rd_kafka_CreatePartitions,
    rd_kafka_CreateTopics,
    rd_kafka_DeleteAcls,
    rd_kafka_DeleteGroup_destroy_array,
    rd_kafka_DeleteGroup_new,
    rd_kafka_DeleteGroup_t,
    rd_kafka_DeleteGroups,
    rd_kafka_DeleteRecords,
    rd_kafka_DeleteRecords_destroy,
    rd_kafka_DeleteRecords_new,
    rd_kafka_DeleteRecords_t,
    rd_kafka_DeleteTopic_destroy_array,
    rd_kafka_DeleteTopic_new,
    rd_kafka_DeleteTopic_t,
    rd_kafka_DeleteTopics,
    rd_kafka_DescribeAcls,
    rd_kafka_DescribeCluster,
    rd_kafka_DescribeConfigs,
    rd_kafka_DescribeConsumerGroups,
    rd_kafka_DescribeTopics,
    rd_kafka_DescribeUserScramCredentials,
    rd_kafka_ElectLeaders,
    rd_kafka_ElectLeaders_destroy,
    rd_kafka_ElectLeaders_new,
    rd_kafka_ElectLeaders_t,
    rd_kafka_IncrementalAlterConfigs,
    rd_kafka_ListConsumerGroupOffsets,
    rd_kafka_ListConsumerGroupOffsets_destroy,
    rd_kafka_ListConsumerGroupOffsets_new,
    rd_kafka_ListConsumerGroupOffsets_t,
    rd_kafka_ListConsumerGroups,
    rd_kafka_ListOffsets,
    rd_kafka_NewPartitions_destroy_array,
    rd_kafka_NewPartitions_new,
    rd_kafka_NewPartitions_set_replica_assignment,
    rd_kafka_NewPartitions_t,
    rd_kafka_NewTopic_destroy_array,
    rd_kafka_NewTopic_new,
    rd_kafka_NewTopic_set_config,
    rd_kafka_NewTopic_set_replica_assignment,
    rd_kafka_NewTopic_t,
    rd_kafka_TopicCollection_destroy,
    rd_kafka_TopicCollection_of_topic_names,
    rd_kafka_TopicCollection_t,
    rd_kafka_UserScramCredentialAlteration_destroy_array,
    rd_kafka_UserScramCredentialAlteration_t,
    rd_kafka_UserScramCredentialDeletion_new,
    rd_kafka_UserScramCredentialUpsertion_new,
    rd_kafka_admin_op_t,
    rd_kafka_consumer_group_state_t,
    rd_kafka_consumer_group_type_t,
)


cdef int32_t *_broker_ids(list ids) except NULL:
    cdef int32_t *out = <int32_t *>malloc(max(len(ids), 1) * sizeof(int32_t))
    if out == NULL:
        raise MemoryError()
    for i, b in enumerate(ids):
        out[i] = b
    return out


@cython.binding(False)
cdef class _Requests:
    """Owns one malloc'ed array of librdkafka request objects of one admin API (NewTopic,
    ConfigResource, AclBinding, ...); frees them with that API's destroy call."""

    def __dealloc__(self):
        if self.ptr == NULL:
            return
        if self.api == RD_KAFKA_ADMIN_OP_CREATETOPICS:
            rd_kafka_NewTopic_destroy_array(<rd_kafka_NewTopic_t **>self.ptr, self.n)
        elif self.api == RD_KAFKA_ADMIN_OP_DELETETOPICS:
            rd_kafka_DeleteTopic_destroy_array(<rd_kafka_DeleteTopic_t **>self.ptr, self.n)
        elif self.api == RD_KAFKA_ADMIN_OP_CREATEPARTITIONS:
            rd_kafka_NewPartitions_destroy_array(<rd_kafka_NewPartitions_t **>self.ptr, self.n)
        elif self.api in (RD_KAFKA_ADMIN_OP_DESCRIBECONFIGS, RD_KAFKA_ADMIN_OP_ALTERCONFIGS,
                          RD_KAFKA_ADMIN_OP_INCREMENTALALTERCONFIGS):
            rd_kafka_ConfigResource_destroy_array(<rd_kafka_ConfigResource_t **>self.ptr, self.n)
        elif self.api in (RD_KAFKA_ADMIN_OP_CREATEACLS, RD_KAFKA_ADMIN_OP_DELETEACLS):
            rd_kafka_AclBinding_destroy_array(<rd_kafka_AclBinding_t **>self.ptr, self.n)
        elif self.api == RD_KAFKA_ADMIN_OP_DELETEGROUPS:
            rd_kafka_DeleteGroup_destroy_array(<rd_kafka_DeleteGroup_t **>self.ptr, self.n)
        elif self.api == RD_KAFKA_ADMIN_OP_ALTERUSERSCRAMCREDENTIALS:
            rd_kafka_UserScramCredentialAlteration_destroy_array(
                <rd_kafka_UserScramCredentialAlteration_t **>self.ptr, self.n)
        free(self.ptr)

    @staticmethod
    cdef _Requests new(rd_kafka_admin_op_t api, size_t size):
        cdef _Requests r = _Requests.__new__(_Requests)
        r.ptr = <void **>malloc(max(size, 1) * sizeof(void *))
        if r.ptr == NULL:
            raise MemoryError()
        r.api = api
        return r

    cdef int add(self, void *obj) except -1:
        if obj == NULL:
            raise MemoryError()
        self.ptr[self.n] = obj
        self.n += 1
        return 0


@cython.binding(False)
@cython.no_gc_clear
cdef class _AdminClientImpl(_Handle):
    """The compiled half of AdminClient (confluent_binding.admin): one rd_kafka_t, its main
    queue (served by poll()) and an admin result queue (served by the client's thread)."""

    def __init__(self, *args, **kwargs):
        if self._rk != NULL:
            raise RuntimeError("AdminClient is already initialised")
        conf = _merge_conf(args, kwargs)
        self._in_flight_requests = {}
        self._open(RD_KAFKA_PRODUCER, self._new_conf(conf, 0), "admin client")
        self._queue = rd_kafka_queue_get_main(self._rk)
        self._results = rd_kafka_queue_new(self._rk)

    # -- requests --

    cdef rd_kafka_AdminOptions_t *_options(self, rd_kafka_admin_op_t api, dict opts) except NULL:
        """AdminOptions for ``api`` from the checked keyword arguments; librdkafka's range
        errors become ValueError with its reason."""
        cdef char errstr[512]
        self._ensure_open()
        cdef rd_kafka_AdminOptions_t *o = rd_kafka_AdminOptions_new(self._rk, api)
        cdef rd_kafka_consumer_group_state_t states[8]
        cdef rd_kafka_consumer_group_type_t types[8]
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
                _check_option(rd_kafka_AdminOptions_set_require_stable_offsets(
                    o, opts["require_stable"]))
            if "include_authorized_operations" in opts:
                _check_option(rd_kafka_AdminOptions_set_include_authorized_operations(
                    o, opts["include_authorized_operations"]))
            if "isolation_level" in opts:
                _check_option(rd_kafka_AdminOptions_set_isolation_level(o, opts["isolation_level"]))
            if "states" in opts:
                n = 0
                for s in opts["states"][:8]:
                    states[n] = <rd_kafka_consumer_group_state_t>s
                    n += 1
                _check_option(rd_kafka_AdminOptions_set_match_consumer_group_states(o, states, n))
            if "types" in opts:
                n = 0
                for t in opts["types"][:8]:
                    types[n] = <rd_kafka_consumer_group_type_t>t
                    n += 1
                _check_option(rd_kafka_AdminOptions_set_match_consumer_group_types(o, types, n))
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
        return self._results

    def _create_topics(self, list specs, future, dict opts):
        cdef char errstr[512]
        cdef size_t i
        cdef int32_t *ids
        cdef rd_kafka_NewTopic_t *t
        cdef _Requests a = _Requests.new(RD_KAFKA_ADMIN_OP_CREATETOPICS, len(specs))
        for name, nparts, rf, assignment, config in specs:
            errstr[0] = 0
            t = rd_kafka_NewTopic_new(name.encode(), nparts, rf, errstr, sizeof(errstr))
            if t == NULL:
                raise ValueError("Invalid NewTopic(%s): %s" % (name, _cstr(errstr)))
            a.add(t)
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
        # confluent-kafka's order: the open client, then each name (None is refused)
        self._ensure_open()
        cdef _Requests a = _Requests.new(RD_KAFKA_ADMIN_OP_DELETETOPICS, len(topics))
        for name in topics:
            if name is None:
                raise ValueError("Expected list of topic strings, not NoneType")
            a.add(rd_kafka_DeleteTopic_new((<str>name).encode()))
        self._send(RD_KAFKA_ADMIN_OP_DELETETOPICS, a, future, opts)

    def _create_partitions(self, list specs, future, dict opts):
        cdef char errstr[512]
        cdef int32_t *ids
        cdef rd_kafka_NewPartitions_t *p
        cdef _Requests a = _Requests.new(RD_KAFKA_ADMIN_OP_CREATEPARTITIONS, len(specs))
        for name, total, assignment in specs:
            errstr[0] = 0
            # a count no size_t holds gets librdkafka's range message too
            p = rd_kafka_NewPartitions_new(name.encode(), total if 0 < total < 2**31 else 0,
                                           errstr, sizeof(errstr))
            if p == NULL:
                raise ValueError("Invalid NewPartitions(%s): %s" % (name, _cstr(errstr)))
            a.add(p)
            for i, replicas in enumerate(assignment or ()):
                ids = _broker_ids(replicas)
                try:
                    _check_errstr(rd_kafka_NewPartitions_set_replica_assignment(
                        p, i, ids, len(replicas), errstr, sizeof(errstr)), errstr)
                finally:
                    free(ids)
        self._send(RD_KAFKA_ADMIN_OP_CREATEPARTITIONS, a, future, opts)

    cdef _Requests _config_resources(self, rd_kafka_admin_op_t api, list resources):
        cdef _Requests a = _Requests.new(api, len(resources))
        cdef rd_kafka_ConfigResource_t *c
        for r in resources:
            c = rd_kafka_ConfigResource_new(r[0], (<str>r[1]).encode())
            if c == NULL:   # an empty name
                raise ValueError("Invalid ConfigResource(%d,%s)" % (r[0], r[1]))
            a.add(c)
        return a

    def _describe_configs(self, list resources, future, dict opts):
        self._send(RD_KAFKA_ADMIN_OP_DESCRIBECONFIGS,
                   self._config_resources(RD_KAFKA_ADMIN_OP_DESCRIBECONFIGS, resources),
                   future, opts)

    def _alter_configs(self, list resources, future, dict opts):
        cdef _Requests a = self._config_resources(RD_KAFKA_ADMIN_OP_ALTERCONFIGS, resources)
        for i, r in enumerate(resources):
            for k, v in r[2]:
                _check(rd_kafka_ConfigResource_set_config(<rd_kafka_ConfigResource_t *>a.ptr[i],
                                                          k.encode(), v.encode()),
                       "Failed to set config %s" % k)
        self._send(RD_KAFKA_ADMIN_OP_ALTERCONFIGS, a, future, opts)

    def _incremental_alter_configs(self, list resources, future, dict opts):
        cdef _Requests a = self._config_resources(RD_KAFKA_ADMIN_OP_INCREMENTALALTERCONFIGS,
                                                  resources)
        cdef bytes value
        cdef rd_kafka_error_t *error
        for i, r in enumerate(resources):
            for j, (name, op, v) in enumerate(r[2]):
                value = None if v is None else v.encode()
                error = rd_kafka_ConfigResource_add_incremental_config(
                    <rd_kafka_ConfigResource_t *>a.ptr[i], name.encode(), op,
                    NULL if value is None else <const char *>value)
                if error != NULL:
                    reason = _cstr(rd_kafka_error_string(error))
                    rd_kafka_error_destroy(error)
                    raise ValueError('setting config entry "%s", index %d, failed: %s'
                                     % (name, j, reason))
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
        cdef _Requests a = _Requests.new(RD_KAFKA_ADMIN_OP_CREATEACLS, len(acls))
        for t in acls:
            a.add(self._acl_binding(t, False))
        self._send(RD_KAFKA_ADMIN_OP_CREATEACLS, a, future, opts)

    def _describe_acls(self, tuple acl_filter, future, dict opts):
        cdef rd_kafka_AdminOptions_t *o
        cdef rd_kafka_AclBinding_t *f = NULL
        cdef cb_section cs
        cb_section_begin(&cs, self)
        try:
            o = self._options(RD_KAFKA_ADMIN_OP_DESCRIBEACLS, opts)
            try:
                f = self._acl_binding(acl_filter, True)
                rd_kafka_DescribeAcls(self._rk, f, o, self._track(o, future))
            finally:
                rd_kafka_AdminOptions_destroy(o)
                if f != NULL:
                    rd_kafka_AclBinding_destroy(f)
        finally:
            cb_section_end(&cs)

    def _delete_acls(self, list filters, future, dict opts):
        cdef _Requests a = _Requests.new(RD_KAFKA_ADMIN_OP_DELETEACLS, len(filters))
        for t in filters:
            a.add(self._acl_binding(t, True))
        self._send(RD_KAFKA_ADMIN_OP_DELETEACLS, a, future, opts)

    def _list_consumer_groups(self, future, dict opts):
        self._send(RD_KAFKA_ADMIN_OP_LISTCONSUMERGROUPS, None, future, opts)

    def _describe_consumer_groups(self, list groups, future, dict opts):
        self._send_names(RD_KAFKA_ADMIN_OP_DESCRIBECONSUMERGROUPS, groups, future, opts)

    def _delete_consumer_groups(self, list groups, future, dict opts):
        cdef _Requests a = _Requests.new(RD_KAFKA_ADMIN_OP_DELETEGROUPS, len(groups))
        for g in groups:
            a.add(rd_kafka_DeleteGroup_new((<str>g).encode()))
        self._send(RD_KAFKA_ADMIN_OP_DELETEGROUPS, a, future, opts)

    def _list_consumer_group_offsets(self, str group, parts, future, dict opts):
        cdef _PartList pl = None if parts is None else _parts_list(parts)
        cdef rd_kafka_ListConsumerGroupOffsets_t *r = rd_kafka_ListConsumerGroupOffsets_new(
            group.encode(), NULL if pl is None else pl.ptr)
        cdef rd_kafka_AdminOptions_t *o = NULL
        cdef cb_section cs
        cb_section_begin(&cs, self)
        try:
            try:
                o = self._options(RD_KAFKA_ADMIN_OP_LISTCONSUMERGROUPOFFSETS, opts)
                rd_kafka_ListConsumerGroupOffsets(self._rk, &r, 1, o, self._track(o, future))
            finally:
                if o != NULL:
                    rd_kafka_AdminOptions_destroy(o)
                rd_kafka_ListConsumerGroupOffsets_destroy(r)
        finally:
            cb_section_end(&cs)

    def _alter_consumer_group_offsets(self, str group, list parts, future, dict opts):
        # a list of TopicPartition: the commit metadata and leader epoch go with the offsets
        cdef _PartList pl = _PartList.from_py(parts)
        cdef rd_kafka_AlterConsumerGroupOffsets_t *r = rd_kafka_AlterConsumerGroupOffsets_new(
            group.encode(), pl.ptr)
        cdef rd_kafka_AdminOptions_t *o = NULL
        cdef cb_section cs
        cb_section_begin(&cs, self)
        try:
            try:
                o = self._options(RD_KAFKA_ADMIN_OP_ALTERCONSUMERGROUPOFFSETS, opts)
                rd_kafka_AlterConsumerGroupOffsets(self._rk, &r, 1, o, self._track(o, future))
            finally:
                if o != NULL:
                    rd_kafka_AdminOptions_destroy(o)
                rd_kafka_AlterConsumerGroupOffsets_destroy(r)
        finally:
            cb_section_end(&cs)

    def _describe_topics(self, list topics, future, dict opts):
        cdef list encoded = [t.encode() for t in topics]
        cdef const char **names = <const char **>malloc(max(len(encoded), 1) * sizeof(char *))
        cdef rd_kafka_TopicCollection_t *tc = NULL
        cdef rd_kafka_AdminOptions_t *o = NULL
        cdef cb_section cs
        cb_section_begin(&cs, self)
        try:
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
        finally:
            cb_section_end(&cs)

    def _describe_cluster(self, future, dict opts):
        self._send(RD_KAFKA_ADMIN_OP_DESCRIBECLUSTER, None, future, opts)

    def _list_offsets(self, list parts, future, dict opts):
        cdef _PartList pl = _parts_list(parts)
        cdef rd_kafka_AdminOptions_t *o
        cdef cb_section cs
        cb_section_begin(&cs, self)
        try:
            o = self._options(RD_KAFKA_ADMIN_OP_LISTOFFSETS, opts)
            try:
                rd_kafka_ListOffsets(self._rk, pl.ptr, o, self._track(o, future))
            finally:
                rd_kafka_AdminOptions_destroy(o)
        finally:
            cb_section_end(&cs)

    def _delete_records(self, list parts, future, dict opts):
        cdef _PartList pl = _parts_list(parts)
        cdef rd_kafka_DeleteRecords_t *r = rd_kafka_DeleteRecords_new(pl.ptr)
        cdef rd_kafka_AdminOptions_t *o = NULL
        cdef cb_section cs
        cb_section_begin(&cs, self)
        try:
            try:
                o = self._options(RD_KAFKA_ADMIN_OP_DELETERECORDS, opts)
                rd_kafka_DeleteRecords(self._rk, &r, 1, o, self._track(o, future))
            finally:
                if o != NULL:
                    rd_kafka_AdminOptions_destroy(o)
                rd_kafka_DeleteRecords_destroy(r)
        finally:
            cb_section_end(&cs)

    def _elect_leaders(self, int election_type, parts, future, dict opts):
        cdef _PartList pl = None if parts is None else _parts_list(parts)
        cdef rd_kafka_ElectLeaders_t *r = rd_kafka_ElectLeaders_new(
            election_type, NULL if pl is None else pl.ptr)
        cdef rd_kafka_AdminOptions_t *o = NULL
        cdef cb_section cs
        cb_section_begin(&cs, self)
        try:
            try:
                o = self._options(RD_KAFKA_ADMIN_OP_ELECTLEADERS, opts)
                rd_kafka_ElectLeaders(self._rk, r, o, self._track(o, future))
            finally:
                if o != NULL:
                    rd_kafka_AdminOptions_destroy(o)
                rd_kafka_ElectLeaders_destroy(r)
        finally:
            cb_section_end(&cs)

    def _describe_user_scram_credentials(self, users, future, dict opts):
        self._send_names(RD_KAFKA_ADMIN_OP_DESCRIBEUSERSCRAMCREDENTIALS, users or [], future, opts)

    def _alter_user_scram_credentials(self, list alterations, future, dict opts):
        cdef _Requests a = _Requests.new(RD_KAFKA_ADMIN_OP_ALTERUSERSCRAMCREDENTIALS,
                                         len(alterations))
        cdef bytes password, salt
        for user, mechanism, iterations, password, salt in alterations:
            if iterations is None:
                a.add(rd_kafka_UserScramCredentialDeletion_new(user.encode(), mechanism))
            else:
                a.add(rd_kafka_UserScramCredentialUpsertion_new(
                    user.encode(), mechanism, iterations,
                    <const unsigned char *>PyBytes_AS_STRING(password), PyBytes_GET_SIZE(password),
                    NULL if salt is None else <const unsigned char *>PyBytes_AS_STRING(salt),
                    0 if salt is None else PyBytes_GET_SIZE(salt)))
        self._send(RD_KAFKA_ADMIN_OP_ALTERUSERSCRAMCREDENTIALS, a, future, opts)

    cdef int _send(self, rd_kafka_admin_op_t api, _Requests a, future, dict opts) except -1:
        """Send a request whose objects are in ``a`` (None for the requests without any)."""
        cdef rd_kafka_AdminOptions_t *o = self._options(api, opts)
        cdef rd_kafka_queue_t *q
        cdef void **objs = NULL if a is None else a.ptr
        cdef size_t n = 0 if a is None else a.n
        cdef cb_section cs
        cb_section_begin(&cs, self)
        try:
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
                    rd_kafka_IncrementalAlterConfigs(self._rk,
                                                     <rd_kafka_ConfigResource_t **>objs, n,
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
        finally:
            cb_section_end(&cs)

    cdef int _send_names(self, rd_kafka_admin_op_t api, list names, future, dict opts) except -1:
        """Send a request that takes an array of C strings (groups, SCRAM users)."""
        cdef list encoded = [(<str>s).encode() for s in names]
        cdef const char **arr = <const char **>malloc(max(len(encoded), 1) * sizeof(char *))
        cdef rd_kafka_AdminOptions_t *o = NULL
        cdef rd_kafka_queue_t *q
        cdef cb_section cs
        cb_section_begin(&cs, self)
        try:
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
        finally:
            cb_section_end(&cs)

    # -- results --

    def _serve_results(self, int timeout_ms):
        """Wait (GIL-free) up to ``timeout_ms`` for one admin result and complete its future.
        False once the client is closing: the result thread then ends."""
        cdef rd_kafka_event_t *ev
        cdef rd_kafka_queue_t *q
        cdef cb_section cs
        cb_section_begin(&cs, self)
        try:
            q = self._results
            if self._stopped or q == NULL or self._blocking.shuts_out():
                return False
            with self._blocking:
                with nogil:
                    ev = rd_kafka_queue_poll(q, timeout_ms)
            if ev != NULL:
                self._complete(ev)
            return not self._stopped
        finally:
            cb_section_end(&cs)

    cdef int _complete(self, rd_kafka_event_t *ev) except -1:
        """Complete the future of the request ``ev`` answers, destroying ``ev`` first (the
        future's callbacks may close the client)."""
        cdef rd_kafka_resp_err_t err
        fut = result = None
        try:
            fut = self._in_flight_requests.pop(<intptr_t>rd_kafka_event_opaque(ev), None)
            if fut is None:
                return 0
            err = rd_kafka_event_error(ev)
            if err:
                result = KafkaException(_kafka_error(err, rd_kafka_event_error_string(ev)))
            else:
                result = _admin_result(ev)
        except BaseException as exc:
            result = exc
        finally:
            rd_kafka_event_destroy(ev)
        if isinstance(result, BaseException):
            fut.set_exception(result)
        else:
            fut.set_result(result)
        return 0

    def _in_flight(self):
        """How many requests wait for their result."""
        cdef cb_section cs
        cb_section_begin(&cs, self)
        try:
            return len(self._in_flight_requests) if self._in_flight_requests else 0
        finally:
            cb_section_end(&cs)

    def _stop_results(self):
        """Make the result thread end (it returns from its wait at once)."""
        cdef cb_section cs
        cb_section_begin(&cs, self)
        try:
            self._stopped = True
            if self._results != NULL:
                rd_kafka_queue_yield(self._results)
        finally:
            cb_section_end(&cs)

    def _close(self):
        """Free the client once the result thread has ended; requests still in flight fail
        with _DESTROY. Closing twice is harmless."""
        cdef cb_section cs
        cb_section_begin(&cs, self)
        try:
            self._stopped = True
            if self._forget_if_forked():
                self._results = NULL
            elif self._rk != NULL and not self._blocking.drain():     # (1: closed meanwhile)
                self._release()
                self._destroy()
            pending, self._in_flight_requests = self._in_flight_requests, {}
            for fut in (pending or {}).values():
                if not fut.done():
                    fut.set_exception(KafkaException(KafkaError(
                        RD_KAFKA_RESP_ERR__DESTROY,
                        "AdminClient closed while the request was in flight")))
        finally:
            cb_section_end(&cs)

    cdef void _release(self) noexcept:
        """Free the result queue (before rd_kafka_destroy; results in it are dropped)."""
        if self._results != NULL:
            rd_kafka_queue_destroy(self._results)
            self._results = NULL

    def __dealloc__(self):
        if self._rk != NULL and getpid() == self._pid:
            self._release()
            self._destroy()

    # -- the rest of confluent-kafka's AdminClient --

    def poll(self, timeout=-1):
        """Serve error_cb, stats_cb, logger and oauth_cb events; wait up to ``timeout``
        seconds for the first. Returns the number of events served."""
        cdef cb_section cs
        cb_section_begin(&cs, self)
        try:
            self._ensure_open()
            if timeout == 0:
                return self._serve(0, True)
            return self._serve(_deadline(timeout), False)
        finally:
            cb_section_end(&cs)

    def __len__(self):
        """Requests and messages librdkafka still has queued or in flight (0 once closed)."""
        cdef cb_section cs
        cb_section_begin(&cs, self)
        try:
            if self._rk == NULL or self._blocking.shuts_out():
                return 0
            return rd_kafka_outq_len(self._rk)
        finally:
            cb_section_end(&cs)

    def _check_open(self):
        """RuntimeError "AdminClient has been closed" once closed: for the requests whose
        arguments confluent-kafka checks only after finding its client open."""
        self._ensure_open()

    def _list_groups(self, group=None, timeout=-1):
        """Groups and members from the legacy ListGroups/DescribeGroups (list_groups())."""
        cdef const rd_kafka_group_list *gl = NULL
        cdef rd_kafka_resp_err_t err
        cdef int tmout = _timeout_ms(timeout)
        cdef bytes g = None if group is None else (<str>group).encode()
        cdef const char *cg = NULL if g is None else <const char *>g
        cdef int i, j
        cdef const rd_kafka_group_info *gi
        cdef const rd_kafka_group_member_info *mi
        cdef cb_section cs
        cb_section_begin(&cs, self)
        try:
            self._ensure_open(True)
            with self._blocking:
                with nogil:
                    err = rd_kafka_list_groups(self._rk, cg, &gl, tmout)
            _check(err, "Failed to list groups")
            out = []
            try:
                for i in range(gl.group_cnt):
                    gi = &gl.groups[i]
                    gm = GroupMetadata()
                    b = BrokerMetadata()
                    b.id, b.host = gi.broker.id, _str_or_none(gi.broker.host)
                    b.port = gi.broker.port
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
        finally:
            cb_section_end(&cs)


cdef _PartList _parts_list(list parts):
    """A partition list from (topic, partition, offset) tuples."""
    cdef _PartList pl = _PartList.new(len(parts))
    cdef rd_kafka_topic_partition_t *c
    for topic, partition, offset in parts:
        c = rd_kafka_topic_partition_list_add(pl.ptr, (<str>topic).encode(), partition)
        c.offset = offset
    return pl
