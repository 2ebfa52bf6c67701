# The AdminClient's result conversions: librdkafka's admin result events -> named tuples and
# lists (the shapes confluent_binding.admin._results turns into the model types). Everything is
# copied out; the event is destroyed by the caller.

from collections import namedtuple

from includes.rdkafka cimport (
    RD_KAFKA_EVENT_ALTERCONFIGS_RESULT,
    RD_KAFKA_EVENT_ALTERCONSUMERGROUPOFFSETS_RESULT,
    RD_KAFKA_EVENT_ALTERUSERSCRAMCREDENTIALS_RESULT,
    RD_KAFKA_EVENT_CREATEACLS_RESULT,
    RD_KAFKA_EVENT_CREATEPARTITIONS_RESULT,
    RD_KAFKA_EVENT_CREATETOPICS_RESULT,
    RD_KAFKA_EVENT_DELETEACLS_RESULT,
    RD_KAFKA_EVENT_DELETEGROUPS_RESULT,
    RD_KAFKA_EVENT_DELETERECORDS_RESULT,
    RD_KAFKA_EVENT_DELETETOPICS_RESULT,
    RD_KAFKA_EVENT_DESCRIBEACLS_RESULT,
    RD_KAFKA_EVENT_DESCRIBECLUSTER_RESULT,
    RD_KAFKA_EVENT_DESCRIBECONFIGS_RESULT,
    RD_KAFKA_EVENT_DESCRIBECONSUMERGROUPS_RESULT,
    RD_KAFKA_EVENT_DESCRIBETOPICS_RESULT,
    RD_KAFKA_EVENT_DESCRIBEUSERSCRAMCREDENTIALS_RESULT,
    RD_KAFKA_EVENT_ELECTLEADERS_RESULT,
    RD_KAFKA_EVENT_INCREMENTALALTERCONFIGS_RESULT,
    RD_KAFKA_EVENT_LISTCONSUMERGROUPOFFSETS_RESULT,
    RD_KAFKA_EVENT_LISTCONSUMERGROUPS_RESULT,
    RD_KAFKA_EVENT_LISTOFFSETS_RESULT,
    rd_kafka_error_t,
    rd_kafka_event_t,
    rd_kafka_event_type,
    rd_kafka_topic_partition_get_leader_epoch,
    rd_kafka_topic_partition_t,
)
from includes.rdkafka_admin cimport (
    rd_kafka_AclBinding_host,
    rd_kafka_AclBinding_name,
    rd_kafka_AclBinding_operation,
    rd_kafka_AclBinding_permission_type,
    rd_kafka_AclBinding_principal,
    rd_kafka_AclBinding_resource_pattern_type,
    rd_kafka_AclBinding_restype,
    rd_kafka_AclBinding_t,
    rd_kafka_AclOperation_t,
    rd_kafka_AlterConfigs_result_resources,
    rd_kafka_AlterConsumerGroupOffsets_result_groups,
    rd_kafka_AlterUserScramCredentials_result_response_error,
    rd_kafka_AlterUserScramCredentials_result_response_user,
    rd_kafka_AlterUserScramCredentials_result_responses,
    rd_kafka_ConfigEntry_is_default,
    rd_kafka_ConfigEntry_is_read_only,
    rd_kafka_ConfigEntry_is_sensitive,
    rd_kafka_ConfigEntry_is_synonym,
    rd_kafka_ConfigEntry_name,
    rd_kafka_ConfigEntry_source,
    rd_kafka_ConfigEntry_synonyms,
    rd_kafka_ConfigEntry_t,
    rd_kafka_ConfigEntry_value,
    rd_kafka_ConfigResource_configs,
    rd_kafka_ConfigResource_error,
    rd_kafka_ConfigResource_error_string,
    rd_kafka_ConfigResource_name,
    rd_kafka_ConfigResource_t,
    rd_kafka_ConfigResource_type,
    rd_kafka_ConsumerGroupDescription_authorized_operations,
    rd_kafka_ConsumerGroupDescription_coordinator,
    rd_kafka_ConsumerGroupDescription_error,
    rd_kafka_ConsumerGroupDescription_group_id,
    rd_kafka_ConsumerGroupDescription_is_simple_consumer_group,
    rd_kafka_ConsumerGroupDescription_member,
    rd_kafka_ConsumerGroupDescription_member_count,
    rd_kafka_ConsumerGroupDescription_partition_assignor,
    rd_kafka_ConsumerGroupDescription_state,
    rd_kafka_ConsumerGroupDescription_t,
    rd_kafka_ConsumerGroupDescription_type,
    rd_kafka_ConsumerGroupListing_group_id,
    rd_kafka_ConsumerGroupListing_is_simple_consumer_group,
    rd_kafka_ConsumerGroupListing_state,
    rd_kafka_ConsumerGroupListing_t,
    rd_kafka_ConsumerGroupListing_type,
    rd_kafka_CreateAcls_result_acls,
    rd_kafka_CreatePartitions_result_topics,
    rd_kafka_CreateTopics_result_topics,
    rd_kafka_DeleteAcls_result_response_error,
    rd_kafka_DeleteAcls_result_response_matching_acls,
    rd_kafka_DeleteAcls_result_response_t,
    rd_kafka_DeleteAcls_result_responses,
    rd_kafka_DeleteGroups_result_groups,
    rd_kafka_DeleteRecords_result_offsets,
    rd_kafka_DeleteTopics_result_topics,
    rd_kafka_DescribeAcls_result_acls,
    rd_kafka_DescribeCluster_result_authorized_operations,
    rd_kafka_DescribeCluster_result_cluster_id,
    rd_kafka_DescribeCluster_result_controller,
    rd_kafka_DescribeCluster_result_nodes,
    rd_kafka_DescribeCluster_result_t,
    rd_kafka_DescribeConfigs_result_resources,
    rd_kafka_DescribeConsumerGroups_result_groups,
    rd_kafka_DescribeTopics_result_topics,
    rd_kafka_DescribeUserScramCredentials_result_descriptions,
    rd_kafka_ElectLeaders_result_partitions,
    rd_kafka_IncrementalAlterConfigs_result_resources,
    rd_kafka_ListConsumerGroupOffsets_result_groups,
    rd_kafka_ListConsumerGroups_result_errors,
    rd_kafka_ListConsumerGroups_result_t,
    rd_kafka_ListConsumerGroups_result_valid,
    rd_kafka_ListOffsetsResultInfo_t,
    rd_kafka_ListOffsetsResultInfo_timestamp,
    rd_kafka_ListOffsetsResultInfo_topic_partition,
    rd_kafka_ListOffsets_result_infos,
    rd_kafka_MemberAssignment_partitions,
    rd_kafka_MemberAssignment_t,
    rd_kafka_MemberDescription_assignment,
    rd_kafka_MemberDescription_client_id,
    rd_kafka_MemberDescription_consumer_id,
    rd_kafka_MemberDescription_group_instance_id,
    rd_kafka_MemberDescription_host,
    rd_kafka_MemberDescription_t,
    rd_kafka_MemberDescription_target_assignment,
    rd_kafka_Node_host,
    rd_kafka_Node_id,
    rd_kafka_Node_port,
    rd_kafka_Node_rack,
    rd_kafka_Node_t,
    rd_kafka_ScramCredentialInfo_iterations,
    rd_kafka_ScramCredentialInfo_mechanism,
    rd_kafka_ScramCredentialInfo_t,
    rd_kafka_TopicDescription_authorized_operations,
    rd_kafka_TopicDescription_error,
    rd_kafka_TopicDescription_is_internal,
    rd_kafka_TopicDescription_name,
    rd_kafka_TopicDescription_partitions,
    rd_kafka_TopicDescription_t,
    rd_kafka_TopicDescription_topic_id,
    rd_kafka_TopicPartitionInfo_isr,
    rd_kafka_TopicPartitionInfo_leader,
    rd_kafka_TopicPartitionInfo_partition,
    rd_kafka_TopicPartitionInfo_replicas,
    rd_kafka_TopicPartitionInfo_t,
    rd_kafka_UserScramCredentialsDescription_error,
    rd_kafka_UserScramCredentialsDescription_scramcredentialinfo,
    rd_kafka_UserScramCredentialsDescription_scramcredentialinfo_count,
    rd_kafka_UserScramCredentialsDescription_t,
    rd_kafka_UserScramCredentialsDescription_user,
    rd_kafka_Uuid_least_significant_bits,
    rd_kafka_Uuid_most_significant_bits,
    rd_kafka_Uuid_t,
    rd_kafka_acl_result_error,
    rd_kafka_event_AlterConfigs_result,
    rd_kafka_event_AlterConsumerGroupOffsets_result,
    rd_kafka_event_AlterUserScramCredentials_result,
    rd_kafka_event_CreateAcls_result,
    rd_kafka_event_CreatePartitions_result,
    rd_kafka_event_CreateTopics_result,
    rd_kafka_event_DeleteAcls_result,
    rd_kafka_event_DeleteGroups_result,
    rd_kafka_event_DeleteRecords_result,
    rd_kafka_event_DeleteTopics_result,
    rd_kafka_event_DescribeAcls_result,
    rd_kafka_event_DescribeCluster_result,
    rd_kafka_event_DescribeConfigs_result,
    rd_kafka_event_DescribeConsumerGroups_result,
    rd_kafka_event_DescribeTopics_result,
    rd_kafka_event_DescribeUserScramCredentials_result,
    rd_kafka_event_ElectLeaders_result,
    rd_kafka_event_IncrementalAlterConfigs_result,
    rd_kafka_event_ListConsumerGroupOffsets_result,
    rd_kafka_event_ListConsumerGroups_result,
    rd_kafka_event_ListOffsets_result,
    rd_kafka_group_result_error,
    rd_kafka_group_result_name,
    rd_kafka_group_result_partitions,
    rd_kafka_group_result_t,
    rd_kafka_topic_partition_result_error,
    rd_kafka_topic_partition_result_partition,
    rd_kafka_topic_partition_result_t,
    rd_kafka_topic_result_error,
    rd_kafka_topic_result_error_string,
    rd_kafka_topic_result_name,
    rd_kafka_topic_result_t,
)


# The shapes the results cross into Python in (admin._results reads them by these names).
_NodeRow = namedtuple("_NodeRow", "id host port rack")
_TopicResultRow = namedtuple("_TopicResultRow", "topic error")
_ConfigEntryRow = namedtuple("_ConfigEntryRow", "name value source is_read_only is_default "
                             "is_sensitive is_synonym synonyms")
_ConfigResourceRow = namedtuple("_ConfigResourceRow", "restype name error entries")
_AclRow = namedtuple("_AclRow", "restype name resource_pattern_type principal host operation "
                     "permission_type")
_GroupOffsetsRow = namedtuple("_GroupOffsetsRow", "group_id partitions")
_MemberRow = namedtuple("_MemberRow", "member_id client_id host group_instance_id assignment "
                        "target_assignment")
_GroupDescriptionRow = namedtuple("_GroupDescriptionRow", "group_id is_simple_consumer_group "
                                  "members partition_assignor state coordinator "
                                  "authorized_operations type")
_PartitionInfoRow = namedtuple("_PartitionInfoRow", "partition leader replicas isr")
_UuidRow = namedtuple("_UuidRow", "most_significant_bits least_significant_bits")
_TopicDescriptionRow = namedtuple("_TopicDescriptionRow", "name topic_id is_internal partitions "
                                  "authorized_operations")
_GroupListingRow = namedtuple("_GroupListingRow", "group_id is_simple_consumer_group state type")
_ListedGroupsRow = namedtuple("_ListedGroupsRow", "valid errors")
_ClusterRow = namedtuple("_ClusterRow", "cluster_id controller nodes authorized_operations")
_ListedOffsetRow = namedtuple("_ListedOffsetRow", "topic partition error offset timestamp "
                              "leader_epoch")
_DeletedRecordsRow = namedtuple("_DeletedRecordsRow", "topic partition error offset")
_ScramInfoRow = namedtuple("_ScramInfoRow", "mechanism iterations")
_ScramDescriptionRow = namedtuple("_ScramDescriptionRow", "user error credential_infos")
_ScramAlteredRow = namedtuple("_ScramAlteredRow", "user error")
_ElectedRow = namedtuple("_ElectedRow", "topic partition offset partition_error error")


cdef inline object _str_or_none(const char *s):
    return None if s == NULL else _cstr(s)


cdef object _node(const rd_kafka_Node_t *n):
    if n == NULL:
        return None
    return _NodeRow(rd_kafka_Node_id(n), _str_or_none(rd_kafka_Node_host(n)),
                    rd_kafka_Node_port(n), _str_or_none(rd_kafka_Node_rack(n)))


cdef list _nodes(const rd_kafka_Node_t **nodes, size_t cnt):
    return [_node(nodes[i]) for i in range(cnt)]


cdef object _operations(const rd_kafka_AclOperation_t *ops, size_t cnt):
    if ops == NULL:
        return None
    return [<int>ops[i] for i in range(cnt)]


cdef list _topic_results(const rd_kafka_topic_result_t **res, size_t cnt):
    return [_TopicResultRow(_cstr(rd_kafka_topic_result_name(res[i])),
                            _kafka_error(rd_kafka_topic_result_error(res[i]),
                                         rd_kafka_topic_result_error_string(res[i])))
            for i in range(cnt)]


cdef object _config_entry(const rd_kafka_ConfigEntry_t *e):
    cdef size_t n = 0
    cdef const rd_kafka_ConfigEntry_t **syn = rd_kafka_ConfigEntry_synonyms(e, &n)
    return _ConfigEntryRow(
        _cstr(rd_kafka_ConfigEntry_name(e)), _str_or_none(rd_kafka_ConfigEntry_value(e)),
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
        out.append(_ConfigResourceRow(<int>rd_kafka_ConfigResource_type(res[i]),
                                      _cstr(rd_kafka_ConfigResource_name(res[i])),
                                      _kafka_error(rd_kafka_ConfigResource_error(res[i]),
                                                   rd_kafka_ConfigResource_error_string(res[i])),
                                      [_config_entry(entries[j]) for j in range(n)]))
    return out


cdef object _acl(const rd_kafka_AclBinding_t *a):
    return _AclRow(<int>rd_kafka_AclBinding_restype(a), _str_or_none(rd_kafka_AclBinding_name(a)),
                   <int>rd_kafka_AclBinding_resource_pattern_type(a),
                   _str_or_none(rd_kafka_AclBinding_principal(a)),
                   _str_or_none(rd_kafka_AclBinding_host(a)),
                   <int>rd_kafka_AclBinding_operation(a),
                   <int>rd_kafka_AclBinding_permission_type(a))


cdef list _group_results(const rd_kafka_group_result_t **res, size_t cnt, bint with_partitions):
    """Per group in request order: a KafkaError, or (group, partitions) / None."""
    cdef list out = []
    cdef size_t i
    for i in range(cnt):
        err = _kafka_error_of(rd_kafka_group_result_error(res[i]))
        if err is not None:
            out.append(err)
        elif with_partitions:
            out.append(_GroupOffsetsRow(_cstr(rd_kafka_group_result_name(res[i])),
                                        _parts_to_py(rd_kafka_group_result_partitions(res[i]))))
        else:
            out.append(None)
    return out


cdef object _member_assignment(const rd_kafka_MemberAssignment_t *a):
    if a == NULL:
        return None
    return _parts_to_py(rd_kafka_MemberAssignment_partitions(a))


cdef object _group_description(const rd_kafka_ConsumerGroupDescription_t *g):
    err = _kafka_error_of(rd_kafka_ConsumerGroupDescription_error(g))
    if err is not None:
        return err
    cdef size_t i, nops = 0
    cdef const rd_kafka_MemberDescription_t *m
    cdef list members = []
    for i in range(rd_kafka_ConsumerGroupDescription_member_count(g)):
        m = rd_kafka_ConsumerGroupDescription_member(g, i)
        members.append(_MemberRow(
            _str_or_none(rd_kafka_MemberDescription_consumer_id(m)),
            _str_or_none(rd_kafka_MemberDescription_client_id(m)),
            _str_or_none(rd_kafka_MemberDescription_host(m)),
            _str_or_none(rd_kafka_MemberDescription_group_instance_id(m)),
            _member_assignment(rd_kafka_MemberDescription_assignment(m)),
            _member_assignment(rd_kafka_MemberDescription_target_assignment(m))))
    cdef const rd_kafka_AclOperation_t *ops = \
        rd_kafka_ConsumerGroupDescription_authorized_operations(g, &nops)
    return _GroupDescriptionRow(
            _cstr(rd_kafka_ConsumerGroupDescription_group_id(g)),
            bool(rd_kafka_ConsumerGroupDescription_is_simple_consumer_group(g)), members,
            _str_or_none(rd_kafka_ConsumerGroupDescription_partition_assignor(g)),
            <int>rd_kafka_ConsumerGroupDescription_state(g),
            _node(rd_kafka_ConsumerGroupDescription_coordinator(g)), _operations(ops, nops),
            <int>rd_kafka_ConsumerGroupDescription_type(g))


cdef object _topic_description(const rd_kafka_TopicDescription_t *t):
    err = _kafka_error_of(rd_kafka_TopicDescription_error(t))
    if err is not None:
        return err
    cdef size_t i, nparts = 0, nops = 0, nrep, nisr
    cdef const rd_kafka_TopicPartitionInfo_t **parts = \
        rd_kafka_TopicDescription_partitions(t, &nparts)
    cdef const rd_kafka_Node_t **rep
    cdef const rd_kafka_Node_t **isr
    cdef list partitions = []
    for i in range(nparts):
        nrep = nisr = 0
        rep = rd_kafka_TopicPartitionInfo_replicas(parts[i], &nrep)
        isr = rd_kafka_TopicPartitionInfo_isr(parts[i], &nisr)
        partitions.append(_PartitionInfoRow(
            rd_kafka_TopicPartitionInfo_partition(parts[i]),
            _node(rd_kafka_TopicPartitionInfo_leader(parts[i])), _nodes(rep, nrep),
            _nodes(isr, nisr)))
    cdef const rd_kafka_Uuid_t *uid = rd_kafka_TopicDescription_topic_id(t)
    cdef const rd_kafka_AclOperation_t *ops = \
        rd_kafka_TopicDescription_authorized_operations(t, &nops)
    return _TopicDescriptionRow(
            _cstr(rd_kafka_TopicDescription_name(t)),
            _UuidRow(rd_kafka_Uuid_most_significant_bits(uid),
                     rd_kafka_Uuid_least_significant_bits(uid)),
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
        return [_kafka_error_of(rd_kafka_acl_result_error(acls[i])) for i in range(n)]
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
        return [_DeletedRecordsRow(tp.topic, tp.partition, tp.error, tp.offset)
                for tp in _parts_to_py(rd_kafka_DeleteRecords_result_offsets(
                    rd_kafka_event_DeleteRecords_result(ev)))]
    if etype == RD_KAFKA_EVENT_DESCRIBEUSERSCRAMCREDENTIALS_RESULT:
        return _described_scram(ev)
    if etype == RD_KAFKA_EVENT_ALTERUSERSCRAMCREDENTIALS_RESULT:
        responses = rd_kafka_AlterUserScramCredentials_result_responses(
            rd_kafka_event_AlterUserScramCredentials_result(ev), &n)
        return [_ScramAlteredRow(
                    _cstr(rd_kafka_AlterUserScramCredentials_result_response_user(responses[i])),
                    _kafka_error_of(
                        rd_kafka_AlterUserScramCredentials_result_response_error(responses[i])))
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
        err = _kafka_error_of(rd_kafka_DeleteAcls_result_response_error(resp[i]))
        if err is not None:
            out.append(err)
            continue
        m = 0
        matching = rd_kafka_DeleteAcls_result_response_matching_acls(resp[i], &m)
        out.append([_acl(matching[j]) for j in range(m)])
    return out


cdef object _listed_groups(rd_kafka_event_t *ev):
    cdef size_t i, n = 0, ne = 0
    cdef const rd_kafka_ListConsumerGroups_result_t *res = \
        rd_kafka_event_ListConsumerGroups_result(ev)
    cdef const rd_kafka_ConsumerGroupListing_t **valid = \
        rd_kafka_ListConsumerGroups_result_valid(res, &n)
    cdef const rd_kafka_error_t **errors = rd_kafka_ListConsumerGroups_result_errors(res, &ne)
    return _ListedGroupsRow(
        [_GroupListingRow(_cstr(rd_kafka_ConsumerGroupListing_group_id(valid[i])),
                          bool(rd_kafka_ConsumerGroupListing_is_simple_consumer_group(valid[i])),
                          <int>rd_kafka_ConsumerGroupListing_state(valid[i]),
                          <int>rd_kafka_ConsumerGroupListing_type(valid[i])) for i in range(n)],
        [_kafka_error_of(errors[i]) for i in range(ne)])


cdef object _described_cluster(rd_kafka_event_t *ev):
    cdef size_t n = 0, nops = 0
    cdef const rd_kafka_DescribeCluster_result_t *res = rd_kafka_event_DescribeCluster_result(ev)
    cdef const rd_kafka_Node_t **nodes = rd_kafka_DescribeCluster_result_nodes(res, &n)
    cdef const rd_kafka_AclOperation_t *ops = \
        rd_kafka_DescribeCluster_result_authorized_operations(res, &nops)
    return _ClusterRow(_str_or_none(rd_kafka_DescribeCluster_result_cluster_id(res)),
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
        out.append(_ListedOffsetRow(_cstr(tp.topic), tp.partition, _kafka_error(tp.err), tp.offset,
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
            infos.append(_ScramInfoRow(<int>rd_kafka_ScramCredentialInfo_mechanism(info),
                                       rd_kafka_ScramCredentialInfo_iterations(info)))
        out.append(_ScramDescriptionRow(
            _cstr(rd_kafka_UserScramCredentialsDescription_user(ds[i])),
            _kafka_error_of(rd_kafka_UserScramCredentialsDescription_error(ds[i])), infos))
    return out


cdef list _elected(rd_kafka_event_t *ev):
    cdef size_t i, n = 0
    cdef const rd_kafka_topic_partition_result_t **res = rd_kafka_ElectLeaders_result_partitions(
        rd_kafka_event_ElectLeaders_result(ev), &n)
    cdef const rd_kafka_topic_partition_t *tp
    cdef list out = []
    for i in range(n):
        tp = rd_kafka_topic_partition_result_partition(res[i])
        # the key's error is the partition's code alone (librdkafka's text), as confluent's
        out.append(_ElectedRow(_cstr(tp.topic), tp.partition, tp.offset, _kafka_error(tp.err),
                               _kafka_error_of(rd_kafka_topic_partition_result_error(res[i]))))
    return out
