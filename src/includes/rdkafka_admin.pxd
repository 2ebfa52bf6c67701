# Declarations from librdkafka/rdkafka.h for the AdminClient: the Admin API (requests, options,
# result accessors, model accessors), in header order, only what is used; every function is nogil.
# Most admin enums are plain ints here: the values cross into Python as ints and the model enums
# (confluent_binding.admin) name them. (The client-API calls the AdminClient also uses, such as
# rd_kafka_queue_new and rd_kafka_list_groups, are in rdkafka.pxd.)

from libc.stdint cimport int32_t, int64_t, uint16_t

from includes.rdkafka cimport (
    rd_kafka_error_t,
    rd_kafka_event_t,
    rd_kafka_queue_t,
    rd_kafka_resp_err_t,
    rd_kafka_t,
    rd_kafka_topic_partition_list_t,
    rd_kafka_topic_partition_t,
)

cdef extern from "librdkafka/rdkafka.h" nogil:
    ctypedef struct rd_kafka_Uuid_t:
        pass
    int64_t rd_kafka_Uuid_least_significant_bits(const rd_kafka_Uuid_t *uuid)
    int64_t rd_kafka_Uuid_most_significant_bits(const rd_kafka_Uuid_t *uuid)

    ctypedef struct rd_kafka_Node_t:
        pass
    int rd_kafka_Node_id(const rd_kafka_Node_t *node)
    const char *rd_kafka_Node_host(const rd_kafka_Node_t *node)
    uint16_t rd_kafka_Node_port(const rd_kafka_Node_t *node)
    const char *rd_kafka_Node_rack(const rd_kafka_Node_t *node)

    # results are const views into the event; one opaque typedef each is enough for Cython
    ctypedef struct rd_kafka_CreateTopics_result_t:
        pass
    ctypedef struct rd_kafka_DeleteTopics_result_t:
        pass
    ctypedef struct rd_kafka_CreatePartitions_result_t:
        pass
    ctypedef struct rd_kafka_AlterConfigs_result_t:
        pass
    ctypedef struct rd_kafka_IncrementalAlterConfigs_result_t:
        pass
    ctypedef struct rd_kafka_DescribeConfigs_result_t:
        pass
    ctypedef struct rd_kafka_DeleteRecords_result_t:
        pass
    ctypedef struct rd_kafka_ListConsumerGroups_result_t:
        pass
    ctypedef struct rd_kafka_DescribeConsumerGroups_result_t:
        pass
    ctypedef struct rd_kafka_DescribeTopics_result_t:
        pass
    ctypedef struct rd_kafka_DescribeCluster_result_t:
        pass
    ctypedef struct rd_kafka_DeleteGroups_result_t:
        pass
    ctypedef struct rd_kafka_CreateAcls_result_t:
        pass
    ctypedef struct rd_kafka_DescribeAcls_result_t:
        pass
    ctypedef struct rd_kafka_DeleteAcls_result_t:
        pass
    ctypedef struct rd_kafka_ListConsumerGroupOffsets_result_t:
        pass
    ctypedef struct rd_kafka_AlterConsumerGroupOffsets_result_t:
        pass
    ctypedef struct rd_kafka_ListOffsets_result_t:
        pass
    ctypedef struct rd_kafka_DescribeUserScramCredentials_result_t:
        pass
    ctypedef struct rd_kafka_AlterUserScramCredentials_result_t:
        pass
    ctypedef struct rd_kafka_ElectLeaders_result_t:
        pass

    const rd_kafka_CreateTopics_result_t *rd_kafka_event_CreateTopics_result(rd_kafka_event_t *rkev)
    const rd_kafka_DeleteTopics_result_t *rd_kafka_event_DeleteTopics_result(rd_kafka_event_t *rkev)
    const rd_kafka_CreatePartitions_result_t *rd_kafka_event_CreatePartitions_result(
        rd_kafka_event_t *rkev)
    const rd_kafka_AlterConfigs_result_t *rd_kafka_event_AlterConfigs_result(rd_kafka_event_t *rkev)
    const rd_kafka_IncrementalAlterConfigs_result_t *rd_kafka_event_IncrementalAlterConfigs_result(
        rd_kafka_event_t *rkev)
    const rd_kafka_DescribeConfigs_result_t *rd_kafka_event_DescribeConfigs_result(
        rd_kafka_event_t *rkev)
    const rd_kafka_DeleteRecords_result_t * \
        rd_kafka_event_DeleteRecords_result(rd_kafka_event_t *rkev)
    const rd_kafka_ListConsumerGroups_result_t *rd_kafka_event_ListConsumerGroups_result(
        rd_kafka_event_t *rkev)
    const rd_kafka_DescribeConsumerGroups_result_t *rd_kafka_event_DescribeConsumerGroups_result(
        rd_kafka_event_t *rkev)
    const rd_kafka_DescribeTopics_result_t *rd_kafka_event_DescribeTopics_result(
        rd_kafka_event_t *rkev)
    const rd_kafka_DescribeCluster_result_t *rd_kafka_event_DescribeCluster_result(
        rd_kafka_event_t *rkev)
    const rd_kafka_DeleteGroups_result_t *rd_kafka_event_DeleteGroups_result(rd_kafka_event_t *rkev)
    const rd_kafka_CreateAcls_result_t *rd_kafka_event_CreateAcls_result(rd_kafka_event_t *rkev)
    const rd_kafka_DescribeAcls_result_t *rd_kafka_event_DescribeAcls_result(rd_kafka_event_t *rkev)
    const rd_kafka_DeleteAcls_result_t *rd_kafka_event_DeleteAcls_result(rd_kafka_event_t *rkev)
    const rd_kafka_ListConsumerGroupOffsets_result_t * \
        rd_kafka_event_ListConsumerGroupOffsets_result(rd_kafka_event_t *rkev)
    const rd_kafka_AlterConsumerGroupOffsets_result_t * \
        rd_kafka_event_AlterConsumerGroupOffsets_result(rd_kafka_event_t *rkev)
    const rd_kafka_ListOffsets_result_t *rd_kafka_event_ListOffsets_result(rd_kafka_event_t *rkev)
    const rd_kafka_DescribeUserScramCredentials_result_t * \
        rd_kafka_event_DescribeUserScramCredentials_result(rd_kafka_event_t *rkev)
    const rd_kafka_AlterUserScramCredentials_result_t * \
        rd_kafka_event_AlterUserScramCredentials_result(rd_kafka_event_t *rkev)
    const rd_kafka_ElectLeaders_result_t *rd_kafka_event_ElectLeaders_result(rd_kafka_event_t *rkev)

    ctypedef struct rd_kafka_topic_result_t:
        pass
    rd_kafka_resp_err_t rd_kafka_topic_result_error(const rd_kafka_topic_result_t *topicres)
    const char *rd_kafka_topic_result_error_string(const rd_kafka_topic_result_t *topicres)
    const char *rd_kafka_topic_result_name(const rd_kafka_topic_result_t *topicres)

    ctypedef struct rd_kafka_group_result_t:
        pass
    const rd_kafka_error_t *rd_kafka_group_result_error(const rd_kafka_group_result_t *groupres)
    const char *rd_kafka_group_result_name(const rd_kafka_group_result_t *groupres)
    const rd_kafka_topic_partition_list_t *rd_kafka_group_result_partitions(
        const rd_kafka_group_result_t *groupres)

    ctypedef struct rd_kafka_topic_partition_result_t:
        pass
    const rd_kafka_topic_partition_t *rd_kafka_topic_partition_result_partition(
        const rd_kafka_topic_partition_result_t *partition_result)
    const rd_kafka_error_t *rd_kafka_topic_partition_result_error(
        const rd_kafka_topic_partition_result_t *partition_result)

    ctypedef enum rd_kafka_admin_op_t:
        RD_KAFKA_ADMIN_OP_ANY
        RD_KAFKA_ADMIN_OP_CREATETOPICS
        RD_KAFKA_ADMIN_OP_DELETETOPICS
        RD_KAFKA_ADMIN_OP_CREATEPARTITIONS
        RD_KAFKA_ADMIN_OP_ALTERCONFIGS
        RD_KAFKA_ADMIN_OP_DESCRIBECONFIGS
        RD_KAFKA_ADMIN_OP_DELETERECORDS
        RD_KAFKA_ADMIN_OP_DELETEGROUPS
        RD_KAFKA_ADMIN_OP_DELETECONSUMERGROUPOFFSETS
        RD_KAFKA_ADMIN_OP_CREATEACLS
        RD_KAFKA_ADMIN_OP_DESCRIBEACLS
        RD_KAFKA_ADMIN_OP_DELETEACLS
        RD_KAFKA_ADMIN_OP_LISTCONSUMERGROUPS
        RD_KAFKA_ADMIN_OP_DESCRIBECONSUMERGROUPS
        RD_KAFKA_ADMIN_OP_LISTCONSUMERGROUPOFFSETS
        RD_KAFKA_ADMIN_OP_ALTERCONSUMERGROUPOFFSETS
        RD_KAFKA_ADMIN_OP_INCREMENTALALTERCONFIGS
        RD_KAFKA_ADMIN_OP_DESCRIBEUSERSCRAMCREDENTIALS
        RD_KAFKA_ADMIN_OP_ALTERUSERSCRAMCREDENTIALS
        RD_KAFKA_ADMIN_OP_DESCRIBETOPICS
        RD_KAFKA_ADMIN_OP_DESCRIBECLUSTER
        RD_KAFKA_ADMIN_OP_LISTOFFSETS
        RD_KAFKA_ADMIN_OP_ELECTLEADERS

    ctypedef enum rd_kafka_consumer_group_state_t:
        RD_KAFKA_CONSUMER_GROUP_STATE_UNKNOWN
    ctypedef enum rd_kafka_consumer_group_type_t:
        RD_KAFKA_CONSUMER_GROUP_TYPE_UNKNOWN
    ctypedef int rd_kafka_IsolationLevel_t
    ctypedef int rd_kafka_ConfigSource_t
    ctypedef int rd_kafka_ResourceType_t
    ctypedef int rd_kafka_ResourcePatternType_t
    ctypedef int rd_kafka_AlterConfigOpType_t
    ctypedef int rd_kafka_AclOperation_t
    ctypedef int rd_kafka_AclPermissionType_t
    ctypedef int rd_kafka_ScramMechanism_t
    ctypedef int rd_kafka_ElectionType_t

    ctypedef struct rd_kafka_AdminOptions_t:
        pass
    rd_kafka_AdminOptions_t *rd_kafka_AdminOptions_new(rd_kafka_t *rk, rd_kafka_admin_op_t for_api)
    void rd_kafka_AdminOptions_destroy(rd_kafka_AdminOptions_t *options)
    rd_kafka_resp_err_t rd_kafka_AdminOptions_set_request_timeout(
        rd_kafka_AdminOptions_t *options, int timeout_ms, char *errstr, size_t errstr_size)
    rd_kafka_resp_err_t rd_kafka_AdminOptions_set_operation_timeout(
        rd_kafka_AdminOptions_t *options, int timeout_ms, char *errstr, size_t errstr_size)
    rd_kafka_resp_err_t rd_kafka_AdminOptions_set_validate_only(
        rd_kafka_AdminOptions_t *options, int true_or_false, char *errstr, size_t errstr_size)
    rd_kafka_resp_err_t rd_kafka_AdminOptions_set_broker(
        rd_kafka_AdminOptions_t *options, int32_t broker_id, char *errstr, size_t errstr_size)
    rd_kafka_error_t *rd_kafka_AdminOptions_set_require_stable_offsets(
        rd_kafka_AdminOptions_t *options, int true_or_false)
    rd_kafka_error_t *rd_kafka_AdminOptions_set_include_authorized_operations(
        rd_kafka_AdminOptions_t *options, int true_or_false)
    rd_kafka_error_t *rd_kafka_AdminOptions_set_match_consumer_group_states(
        rd_kafka_AdminOptions_t *options, const rd_kafka_consumer_group_state_t *states,
        size_t states_cnt)
    rd_kafka_error_t *rd_kafka_AdminOptions_set_match_consumer_group_types(
        rd_kafka_AdminOptions_t *options, const rd_kafka_consumer_group_type_t *types,
        size_t types_cnt)
    rd_kafka_error_t *rd_kafka_AdminOptions_set_isolation_level(
        rd_kafka_AdminOptions_t *options, rd_kafka_IsolationLevel_t value)
    void rd_kafka_AdminOptions_set_opaque(rd_kafka_AdminOptions_t *options, void *ev_opaque)

    ctypedef struct rd_kafka_NewTopic_t:
        pass
    rd_kafka_NewTopic_t *rd_kafka_NewTopic_new(const char *topic, int num_partitions,
                                               int replication_factor, char *errstr,
                                               size_t errstr_size)
    void rd_kafka_NewTopic_destroy_array(rd_kafka_NewTopic_t **new_topics, size_t new_topic_cnt)
    rd_kafka_resp_err_t rd_kafka_NewTopic_set_replica_assignment(
        rd_kafka_NewTopic_t *new_topic, int32_t partition, int32_t *broker_ids,
        size_t broker_id_cnt, char *errstr, size_t errstr_size)
    rd_kafka_resp_err_t rd_kafka_NewTopic_set_config(rd_kafka_NewTopic_t *new_topic,
                                                     const char *name, const char *value)
    void rd_kafka_CreateTopics(rd_kafka_t *rk, rd_kafka_NewTopic_t **new_topics,
                               size_t new_topic_cnt, const rd_kafka_AdminOptions_t *options,
                               rd_kafka_queue_t *rkqu)
    const rd_kafka_topic_result_t **rd_kafka_CreateTopics_result_topics(
        const rd_kafka_CreateTopics_result_t *result, size_t *cntp)

    ctypedef struct rd_kafka_DeleteTopic_t:
        pass
    rd_kafka_DeleteTopic_t *rd_kafka_DeleteTopic_new(const char *topic)
    void rd_kafka_DeleteTopic_destroy_array(rd_kafka_DeleteTopic_t **del_topics,
                                            size_t del_topic_cnt)
    void rd_kafka_DeleteTopics(rd_kafka_t *rk, rd_kafka_DeleteTopic_t **del_topics,
                               size_t del_topic_cnt, const rd_kafka_AdminOptions_t *options,
                               rd_kafka_queue_t *rkqu)
    const rd_kafka_topic_result_t **rd_kafka_DeleteTopics_result_topics(
        const rd_kafka_DeleteTopics_result_t *result, size_t *cntp)

    ctypedef struct rd_kafka_NewPartitions_t:
        pass
    rd_kafka_NewPartitions_t *rd_kafka_NewPartitions_new(const char *topic, size_t new_total_cnt,
                                                         char *errstr, size_t errstr_size)
    void rd_kafka_NewPartitions_destroy_array(rd_kafka_NewPartitions_t **new_parts,
                                              size_t new_parts_cnt)
    rd_kafka_resp_err_t rd_kafka_NewPartitions_set_replica_assignment(
        rd_kafka_NewPartitions_t *new_parts, int32_t new_partition_idx, int32_t *broker_ids,
        size_t broker_id_cnt, char *errstr, size_t errstr_size)
    void rd_kafka_CreatePartitions(rd_kafka_t *rk, rd_kafka_NewPartitions_t **new_parts,
                                   size_t new_parts_cnt, const rd_kafka_AdminOptions_t *options,
                                   rd_kafka_queue_t *rkqu)
    const rd_kafka_topic_result_t **rd_kafka_CreatePartitions_result_topics(
        const rd_kafka_CreatePartitions_result_t *result, size_t *cntp)

    ctypedef struct rd_kafka_ConfigEntry_t:
        pass
    const char *rd_kafka_ConfigEntry_name(const rd_kafka_ConfigEntry_t *entry)
    const char *rd_kafka_ConfigEntry_value(const rd_kafka_ConfigEntry_t *entry)
    rd_kafka_ConfigSource_t rd_kafka_ConfigEntry_source(const rd_kafka_ConfigEntry_t *entry)
    int rd_kafka_ConfigEntry_is_read_only(const rd_kafka_ConfigEntry_t *entry)
    int rd_kafka_ConfigEntry_is_default(const rd_kafka_ConfigEntry_t *entry)
    int rd_kafka_ConfigEntry_is_sensitive(const rd_kafka_ConfigEntry_t *entry)
    int rd_kafka_ConfigEntry_is_synonym(const rd_kafka_ConfigEntry_t *entry)
    const rd_kafka_ConfigEntry_t ** \
        rd_kafka_ConfigEntry_synonyms(const rd_kafka_ConfigEntry_t *entry,
                                      size_t *cntp)

    ctypedef struct rd_kafka_ConfigResource_t:
        pass
    rd_kafka_ConfigResource_t *rd_kafka_ConfigResource_new(rd_kafka_ResourceType_t restype,
                                                           const char *resname)
    void rd_kafka_ConfigResource_destroy_array(rd_kafka_ConfigResource_t **config,
                                               size_t config_cnt)
    rd_kafka_resp_err_t rd_kafka_ConfigResource_set_config(rd_kafka_ConfigResource_t *config,
                                                           const char *name, const char *value)
    rd_kafka_error_t *rd_kafka_ConfigResource_add_incremental_config(
        rd_kafka_ConfigResource_t *config, const char *name, rd_kafka_AlterConfigOpType_t op_type,
        const char *value)
    const rd_kafka_ConfigEntry_t **rd_kafka_ConfigResource_configs(
        const rd_kafka_ConfigResource_t *config, size_t *cntp)
    rd_kafka_ResourceType_t rd_kafka_ConfigResource_type(const rd_kafka_ConfigResource_t *config)
    const char *rd_kafka_ConfigResource_name(const rd_kafka_ConfigResource_t *config)
    rd_kafka_resp_err_t rd_kafka_ConfigResource_error(const rd_kafka_ConfigResource_t *config)
    const char *rd_kafka_ConfigResource_error_string(const rd_kafka_ConfigResource_t *config)
    void rd_kafka_AlterConfigs(rd_kafka_t *rk, rd_kafka_ConfigResource_t **configs,
                               size_t config_cnt, const rd_kafka_AdminOptions_t *options,
                               rd_kafka_queue_t *rkqu)
    const rd_kafka_ConfigResource_t **rd_kafka_AlterConfigs_result_resources(
        const rd_kafka_AlterConfigs_result_t *result, size_t *cntp)
    void rd_kafka_IncrementalAlterConfigs(rd_kafka_t *rk, rd_kafka_ConfigResource_t **configs,
                                          size_t config_cnt,
                                          const rd_kafka_AdminOptions_t *options,
                                          rd_kafka_queue_t *rkqu)
    const rd_kafka_ConfigResource_t **rd_kafka_IncrementalAlterConfigs_result_resources(
        const rd_kafka_IncrementalAlterConfigs_result_t *result, size_t *cntp)
    void rd_kafka_DescribeConfigs(rd_kafka_t *rk, rd_kafka_ConfigResource_t **configs,
                                  size_t config_cnt, const rd_kafka_AdminOptions_t *options,
                                  rd_kafka_queue_t *rkqu)
    const rd_kafka_ConfigResource_t **rd_kafka_DescribeConfigs_result_resources(
        const rd_kafka_DescribeConfigs_result_t *result, size_t *cntp)

    ctypedef struct rd_kafka_DeleteRecords_t:
        pass
    rd_kafka_DeleteRecords_t *rd_kafka_DeleteRecords_new(
        const rd_kafka_topic_partition_list_t *before_offsets)
    void rd_kafka_DeleteRecords_destroy(rd_kafka_DeleteRecords_t *del_records)
    void rd_kafka_DeleteRecords(rd_kafka_t *rk, rd_kafka_DeleteRecords_t **del_records,
                                size_t del_record_cnt, const rd_kafka_AdminOptions_t *options,
                                rd_kafka_queue_t *rkqu)
    const rd_kafka_topic_partition_list_t *rd_kafka_DeleteRecords_result_offsets(
        const rd_kafka_DeleteRecords_result_t *result)

    ctypedef struct rd_kafka_TopicCollection_t:
        pass
    ctypedef struct rd_kafka_TopicDescription_t:
        pass
    ctypedef struct rd_kafka_TopicPartitionInfo_t:
        pass
    rd_kafka_TopicCollection_t *rd_kafka_TopicCollection_of_topic_names(const char **topics,
                                                                        size_t topics_cnt)
    void rd_kafka_TopicCollection_destroy(rd_kafka_TopicCollection_t *topics)
    void rd_kafka_DescribeTopics(rd_kafka_t *rk, const rd_kafka_TopicCollection_t *topics,
                                 const rd_kafka_AdminOptions_t *options, rd_kafka_queue_t *rkqu)
    const rd_kafka_TopicDescription_t **rd_kafka_DescribeTopics_result_topics(
        const rd_kafka_DescribeTopics_result_t *result, size_t *cntp)
    const rd_kafka_TopicPartitionInfo_t **rd_kafka_TopicDescription_partitions(
        const rd_kafka_TopicDescription_t *topicdesc, size_t *cntp)
    const int rd_kafka_TopicPartitionInfo_partition(const rd_kafka_TopicPartitionInfo_t *partition)
    const rd_kafka_Node_t *rd_kafka_TopicPartitionInfo_leader(
        const rd_kafka_TopicPartitionInfo_t *partition)
    const rd_kafka_Node_t **rd_kafka_TopicPartitionInfo_isr(
        const rd_kafka_TopicPartitionInfo_t *partition, size_t *cntp)
    const rd_kafka_Node_t **rd_kafka_TopicPartitionInfo_replicas(
        const rd_kafka_TopicPartitionInfo_t *partition, size_t *cntp)
    const rd_kafka_AclOperation_t *rd_kafka_TopicDescription_authorized_operations(
        const rd_kafka_TopicDescription_t *topicdesc, size_t *cntp)
    const char *rd_kafka_TopicDescription_name(const rd_kafka_TopicDescription_t *topicdesc)
    const rd_kafka_Uuid_t *rd_kafka_TopicDescription_topic_id(
        const rd_kafka_TopicDescription_t *topicdesc)
    int rd_kafka_TopicDescription_is_internal(const rd_kafka_TopicDescription_t *topicdesc)
    const rd_kafka_error_t *rd_kafka_TopicDescription_error(
        const rd_kafka_TopicDescription_t *topicdesc)

    void rd_kafka_DescribeCluster(rd_kafka_t *rk, const rd_kafka_AdminOptions_t *options,
                                  rd_kafka_queue_t *rkqu)
    const rd_kafka_Node_t **rd_kafka_DescribeCluster_result_nodes(
        const rd_kafka_DescribeCluster_result_t *result, size_t *cntp)
    const rd_kafka_AclOperation_t *rd_kafka_DescribeCluster_result_authorized_operations(
        const rd_kafka_DescribeCluster_result_t *result, size_t *cntp)
    const rd_kafka_Node_t *rd_kafka_DescribeCluster_result_controller(
        const rd_kafka_DescribeCluster_result_t *result)
    const char *rd_kafka_DescribeCluster_result_cluster_id(
        const rd_kafka_DescribeCluster_result_t *result)

    ctypedef struct rd_kafka_ConsumerGroupListing_t:
        pass
    void rd_kafka_ListConsumerGroups(rd_kafka_t *rk, const rd_kafka_AdminOptions_t *options,
                                     rd_kafka_queue_t *rkqu)
    const char *rd_kafka_ConsumerGroupListing_group_id(const rd_kafka_ConsumerGroupListing_t *g)
    int rd_kafka_ConsumerGroupListing_is_simple_consumer_group(
        const rd_kafka_ConsumerGroupListing_t *g)
    rd_kafka_consumer_group_state_t rd_kafka_ConsumerGroupListing_state(
        const rd_kafka_ConsumerGroupListing_t *g)
    rd_kafka_consumer_group_type_t rd_kafka_ConsumerGroupListing_type(
        const rd_kafka_ConsumerGroupListing_t *g)
    const rd_kafka_ConsumerGroupListing_t **rd_kafka_ListConsumerGroups_result_valid(
        const rd_kafka_ListConsumerGroups_result_t *result, size_t *cntp)
    const rd_kafka_error_t **rd_kafka_ListConsumerGroups_result_errors(
        const rd_kafka_ListConsumerGroups_result_t *result, size_t *cntp)

    ctypedef struct rd_kafka_ConsumerGroupDescription_t:
        pass
    ctypedef struct rd_kafka_MemberDescription_t:
        pass
    ctypedef struct rd_kafka_MemberAssignment_t:
        pass
    void rd_kafka_DescribeConsumerGroups(rd_kafka_t *rk, const char **groups, size_t groups_cnt,
                                         const rd_kafka_AdminOptions_t *options,
                                         rd_kafka_queue_t *rkqu)
    const rd_kafka_ConsumerGroupDescription_t **rd_kafka_DescribeConsumerGroups_result_groups(
        const rd_kafka_DescribeConsumerGroups_result_t *result, size_t *cntp)
    const char *rd_kafka_ConsumerGroupDescription_group_id(
        const rd_kafka_ConsumerGroupDescription_t *g)
    const rd_kafka_error_t *rd_kafka_ConsumerGroupDescription_error(
        const rd_kafka_ConsumerGroupDescription_t *g)
    int rd_kafka_ConsumerGroupDescription_is_simple_consumer_group(
        const rd_kafka_ConsumerGroupDescription_t *g)
    const char *rd_kafka_ConsumerGroupDescription_partition_assignor(
        const rd_kafka_ConsumerGroupDescription_t *g)
    const rd_kafka_AclOperation_t *rd_kafka_ConsumerGroupDescription_authorized_operations(
        const rd_kafka_ConsumerGroupDescription_t *g, size_t *cntp)
    rd_kafka_consumer_group_state_t rd_kafka_ConsumerGroupDescription_state(
        const rd_kafka_ConsumerGroupDescription_t *g)
    const rd_kafka_Node_t *rd_kafka_ConsumerGroupDescription_coordinator(
        const rd_kafka_ConsumerGroupDescription_t *g)
    rd_kafka_consumer_group_type_t rd_kafka_ConsumerGroupDescription_type(
        const rd_kafka_ConsumerGroupDescription_t *g)
    size_t rd_kafka_ConsumerGroupDescription_member_count(
        const rd_kafka_ConsumerGroupDescription_t *g)
    const rd_kafka_MemberDescription_t *rd_kafka_ConsumerGroupDescription_member(
        const rd_kafka_ConsumerGroupDescription_t *g, size_t idx)
    const char *rd_kafka_MemberDescription_client_id(const rd_kafka_MemberDescription_t *m)
    const char *rd_kafka_MemberDescription_group_instance_id(const rd_kafka_MemberDescription_t *m)
    const char *rd_kafka_MemberDescription_consumer_id(const rd_kafka_MemberDescription_t *m)
    const char *rd_kafka_MemberDescription_host(const rd_kafka_MemberDescription_t *m)
    const rd_kafka_MemberAssignment_t *rd_kafka_MemberDescription_assignment(
        const rd_kafka_MemberDescription_t *m)
    const rd_kafka_topic_partition_list_t *rd_kafka_MemberAssignment_partitions(
        const rd_kafka_MemberAssignment_t *assignment)
    const rd_kafka_MemberAssignment_t *rd_kafka_MemberDescription_target_assignment(
        const rd_kafka_MemberDescription_t *m)

    ctypedef struct rd_kafka_DeleteGroup_t:
        pass
    rd_kafka_DeleteGroup_t *rd_kafka_DeleteGroup_new(const char *group)
    void rd_kafka_DeleteGroup_destroy_array(rd_kafka_DeleteGroup_t **del_groups,
                                            size_t del_group_cnt)
    void rd_kafka_DeleteGroups(rd_kafka_t *rk, rd_kafka_DeleteGroup_t **del_groups,
                               size_t del_group_cnt, const rd_kafka_AdminOptions_t *options,
                               rd_kafka_queue_t *rkqu)
    const rd_kafka_group_result_t **rd_kafka_DeleteGroups_result_groups(
        const rd_kafka_DeleteGroups_result_t *result, size_t *cntp)

    ctypedef struct rd_kafka_ListConsumerGroupOffsets_t:
        pass
    rd_kafka_ListConsumerGroupOffsets_t *rd_kafka_ListConsumerGroupOffsets_new(
        const char *group_id, const rd_kafka_topic_partition_list_t *partitions)
    void rd_kafka_ListConsumerGroupOffsets_destroy(rd_kafka_ListConsumerGroupOffsets_t *r)
    void rd_kafka_ListConsumerGroupOffsets(rd_kafka_t *rk,
                                           rd_kafka_ListConsumerGroupOffsets_t **requests,
                                           size_t cnt, const rd_kafka_AdminOptions_t *options,
                                           rd_kafka_queue_t *rkqu)
    const rd_kafka_group_result_t **rd_kafka_ListConsumerGroupOffsets_result_groups(
        const rd_kafka_ListConsumerGroupOffsets_result_t *result, size_t *cntp)

    ctypedef struct rd_kafka_AlterConsumerGroupOffsets_t:
        pass
    rd_kafka_AlterConsumerGroupOffsets_t *rd_kafka_AlterConsumerGroupOffsets_new(
        const char *group_id, const rd_kafka_topic_partition_list_t *partitions)
    void rd_kafka_AlterConsumerGroupOffsets_destroy(rd_kafka_AlterConsumerGroupOffsets_t *r)
    void rd_kafka_AlterConsumerGroupOffsets(rd_kafka_t *rk,
                                            rd_kafka_AlterConsumerGroupOffsets_t **requests,
                                            size_t cnt, const rd_kafka_AdminOptions_t *options,
                                            rd_kafka_queue_t *rkqu)
    const rd_kafka_group_result_t **rd_kafka_AlterConsumerGroupOffsets_result_groups(
        const rd_kafka_AlterConsumerGroupOffsets_result_t *result, size_t *cntp)

    ctypedef struct rd_kafka_ListOffsetsResultInfo_t:
        pass
    const rd_kafka_topic_partition_t *rd_kafka_ListOffsetsResultInfo_topic_partition(
        const rd_kafka_ListOffsetsResultInfo_t *result_info)
    int64_t rd_kafka_ListOffsetsResultInfo_timestamp(
        const rd_kafka_ListOffsetsResultInfo_t *result_info)
    const rd_kafka_ListOffsetsResultInfo_t **rd_kafka_ListOffsets_result_infos(
        const rd_kafka_ListOffsets_result_t *result, size_t *cntp)
    void rd_kafka_ListOffsets(rd_kafka_t *rk, rd_kafka_topic_partition_list_t *topic_partitions,
                              const rd_kafka_AdminOptions_t *options, rd_kafka_queue_t *rkqu)

    ctypedef struct rd_kafka_ScramCredentialInfo_t:
        pass
    ctypedef struct rd_kafka_UserScramCredentialsDescription_t:
        pass
    ctypedef struct rd_kafka_UserScramCredentialAlteration_t:
        pass
    ctypedef struct rd_kafka_AlterUserScramCredentials_result_response_t:
        pass
    rd_kafka_ScramMechanism_t rd_kafka_ScramCredentialInfo_mechanism(
        const rd_kafka_ScramCredentialInfo_t *info)
    int32_t rd_kafka_ScramCredentialInfo_iterations(const rd_kafka_ScramCredentialInfo_t *info)
    const char *rd_kafka_UserScramCredentialsDescription_user(
        const rd_kafka_UserScramCredentialsDescription_t *d)
    const rd_kafka_error_t *rd_kafka_UserScramCredentialsDescription_error(
        const rd_kafka_UserScramCredentialsDescription_t *d)
    size_t rd_kafka_UserScramCredentialsDescription_scramcredentialinfo_count(
        const rd_kafka_UserScramCredentialsDescription_t *d)
    const rd_kafka_ScramCredentialInfo_t * \
        rd_kafka_UserScramCredentialsDescription_scramcredentialinfo(
            const rd_kafka_UserScramCredentialsDescription_t *d, size_t idx)
    const rd_kafka_UserScramCredentialsDescription_t ** \
        rd_kafka_DescribeUserScramCredentials_result_descriptions(
            const rd_kafka_DescribeUserScramCredentials_result_t *result, size_t *cntp)
    void rd_kafka_DescribeUserScramCredentials(rd_kafka_t *rk, const char **users, size_t user_cnt,
                                               const rd_kafka_AdminOptions_t *options,
                                               rd_kafka_queue_t *rkqu)
    rd_kafka_UserScramCredentialAlteration_t *rd_kafka_UserScramCredentialUpsertion_new(
        const char *username, rd_kafka_ScramMechanism_t mechanism, int32_t iterations,
        const unsigned char *password, size_t password_size, const unsigned char *salt,
        size_t salt_size)
    rd_kafka_UserScramCredentialAlteration_t *rd_kafka_UserScramCredentialDeletion_new(
        const char *username, rd_kafka_ScramMechanism_t mechanism)
    void rd_kafka_UserScramCredentialAlteration_destroy_array(
        rd_kafka_UserScramCredentialAlteration_t **alterations, size_t alteration_cnt)
    const char *rd_kafka_AlterUserScramCredentials_result_response_user(
        const rd_kafka_AlterUserScramCredentials_result_response_t *response)
    const rd_kafka_error_t *rd_kafka_AlterUserScramCredentials_result_response_error(
        const rd_kafka_AlterUserScramCredentials_result_response_t *response)
    const rd_kafka_AlterUserScramCredentials_result_response_t ** \
        rd_kafka_AlterUserScramCredentials_result_responses(
            const rd_kafka_AlterUserScramCredentials_result_t *result, size_t *cntp)
    void rd_kafka_AlterUserScramCredentials(rd_kafka_t *rk,
                                            rd_kafka_UserScramCredentialAlteration_t **alterations,
                                            size_t alteration_cnt,
                                            const rd_kafka_AdminOptions_t *options,
                                            rd_kafka_queue_t *rkqu)

    ctypedef struct rd_kafka_acl_result_t:
        pass
    ctypedef struct rd_kafka_AclBinding_t:
        pass
    ctypedef rd_kafka_AclBinding_t rd_kafka_AclBindingFilter_t
    ctypedef struct rd_kafka_DeleteAcls_result_response_t:
        pass
    const rd_kafka_error_t *rd_kafka_acl_result_error(const rd_kafka_acl_result_t *aclres)
    rd_kafka_AclBinding_t *rd_kafka_AclBinding_new(
        rd_kafka_ResourceType_t restype, const char *name,
        rd_kafka_ResourcePatternType_t resource_pattern_type, const char *principal,
        const char *host, rd_kafka_AclOperation_t operation,
        rd_kafka_AclPermissionType_t permission_type, char *errstr, size_t errstr_size)
    rd_kafka_AclBindingFilter_t *rd_kafka_AclBindingFilter_new(
        rd_kafka_ResourceType_t restype, const char *name,
        rd_kafka_ResourcePatternType_t resource_pattern_type, const char *principal,
        const char *host, rd_kafka_AclOperation_t operation,
        rd_kafka_AclPermissionType_t permission_type, char *errstr, size_t errstr_size)
    rd_kafka_ResourceType_t rd_kafka_AclBinding_restype(const rd_kafka_AclBinding_t *acl)
    const char *rd_kafka_AclBinding_name(const rd_kafka_AclBinding_t *acl)
    const char *rd_kafka_AclBinding_principal(const rd_kafka_AclBinding_t *acl)
    const char *rd_kafka_AclBinding_host(const rd_kafka_AclBinding_t *acl)
    rd_kafka_AclOperation_t rd_kafka_AclBinding_operation(const rd_kafka_AclBinding_t *acl)
    rd_kafka_AclPermissionType_t rd_kafka_AclBinding_permission_type(
        const rd_kafka_AclBinding_t *acl)
    rd_kafka_ResourcePatternType_t rd_kafka_AclBinding_resource_pattern_type(
        const rd_kafka_AclBinding_t *acl)
    void rd_kafka_AclBinding_destroy(rd_kafka_AclBinding_t *acl_binding)
    void rd_kafka_AclBinding_destroy_array(rd_kafka_AclBinding_t **acl_bindings, size_t cnt)
    const rd_kafka_acl_result_t **rd_kafka_CreateAcls_result_acls(
        const rd_kafka_CreateAcls_result_t *result, size_t *cntp)
    void rd_kafka_CreateAcls(rd_kafka_t *rk, rd_kafka_AclBinding_t **new_acls, size_t new_acls_cnt,
                             const rd_kafka_AdminOptions_t *options, rd_kafka_queue_t *rkqu)
    const rd_kafka_AclBinding_t **rd_kafka_DescribeAcls_result_acls(
        const rd_kafka_DescribeAcls_result_t *result, size_t *cntp)
    void rd_kafka_DescribeAcls(rd_kafka_t *rk, rd_kafka_AclBindingFilter_t *acl_filter,
                               const rd_kafka_AdminOptions_t *options, rd_kafka_queue_t *rkqu)
    const rd_kafka_DeleteAcls_result_response_t **rd_kafka_DeleteAcls_result_responses(
        const rd_kafka_DeleteAcls_result_t *result, size_t *cntp)
    const rd_kafka_error_t *rd_kafka_DeleteAcls_result_response_error(
        const rd_kafka_DeleteAcls_result_response_t *result_response)
    const rd_kafka_AclBinding_t **rd_kafka_DeleteAcls_result_response_matching_acls(
        const rd_kafka_DeleteAcls_result_response_t *result_response, size_t *matching_acls_cntp)
    void rd_kafka_DeleteAcls(rd_kafka_t *rk, rd_kafka_AclBindingFilter_t **del_acls,
                             size_t del_acls_cnt, const rd_kafka_AdminOptions_t *options,
                             rd_kafka_queue_t *rkqu)

    ctypedef struct rd_kafka_ElectLeaders_t:
        pass
    rd_kafka_ElectLeaders_t *rd_kafka_ElectLeaders_new(rd_kafka_ElectionType_t election_type,
                                                       rd_kafka_topic_partition_list_t *partitions)
    void rd_kafka_ElectLeaders_destroy(rd_kafka_ElectLeaders_t *elect_leaders)
    void rd_kafka_ElectLeaders(rd_kafka_t *rk, rd_kafka_ElectLeaders_t *elect_leaders,
                               const rd_kafka_AdminOptions_t *options, rd_kafka_queue_t *rkqu)
    const rd_kafka_topic_partition_result_t **rd_kafka_ElectLeaders_result_partitions(
        const rd_kafka_ElectLeaders_result_t *result, size_t *cntp)
