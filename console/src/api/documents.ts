import { graphql } from '../gql';

export const MeQuery = graphql(`
  query Me {
    me {
      id
      name
      role
      users
      allUsers
      profiles
      userId
    }
  }
`);

export const QueueCallFields = graphql(`
  fragment QueueCallFields on ToolCall {
    id
    name
    status
    requestedAt
    requestedBy
    arguments
    argumentsHash
    policyReason
    run {
      id
      userId
      profileId
    }
    decision {
      approved
      decidedBy
      decidedAt
      reason
    }
    approvalRequest {
      toolName
      title
      displayName
      argumentsSummary
      argumentsHash
      message
      policyReason
      source
      expiresAt
      annotations {
        readOnly
        destructive
        idempotent
        openWorld
        cost
      }
    }
  }
`);

export const QueueEventsSubscription = graphql(`
  subscription QueueEvents($filter: ApprovalQueueFilter) {
    approvalQueueEvents(filter: $filter) {
      kind
      pending
      call {
        ...QueueCallFields
      }
    }
  }
`);

export const PendingCountQuery = graphql(`
  query PendingCount($filter: ApprovalQueueFilter) {
    pendingApprovals(filter: $filter, first: 1) {
      totalCount
    }
  }
`);

export const ApproveMutation = graphql(`
  mutation Approve($id: ID!, $reason: String, $argumentsHash: String) {
    approveToolCall(id: $id, reason: $reason, argumentsHash: $argumentsHash) {
      id
      status
    }
  }
`);

export const DenyMutation = graphql(`
  mutation Deny($id: ID!, $reason: String, $argumentsHash: String) {
    denyToolCall(id: $id, reason: $reason, argumentsHash: $argumentsHash) {
      id
      status
    }
  }
`);

export const SetPolicyRuleMutation = graphql(`
  mutation AlwaysAllow($input: PolicyRuleInput!) {
    setPolicyRule(input: $input) {
      id
      layer
      scopeId
      toolPattern
      effect
      reason
    }
  }
`);

export const RunQuery = graphql(`
  query RunView($id: ID!) {
    run(id: $id) {
      id
      status
      userId
      profileId
      planNodeId
      createdAt
      createdBy
      finishedAt
      failure {
        code
        kind
        message
      }
      toolCalls(first: 30) {
        edges {
          node {
            id
            name
            status
            requestedAt
            requestedBy
            startedAt
            finishedAt
            attempts
            arguments
            policyReason
            approvalRequired
            decision {
              approved
              decidedBy
              decidedAt
              reason
            }
            error {
              code
              kind
              message
            }
            result {
              isError
              structured
              usage {
                durationMs
              }
              content {
                __typename
                ... on TextPart {
                  text
                }
                ... on JsonPart {
                  value
                }
                ... on DiffRefPart {
                  uri
                  fromRef
                  toRef
                }
                ... on ImageRefPart {
                  uri
                  imageType: mimeType
                }
                ... on ResourceRefPart {
                  uri
                  resourceType: mimeType
                  description
                }
                ... on FileRefPart {
                  path
                  fileUri: uri
                  fileType: mimeType
                }
                ... on AudioRefPart {
                  uri
                  audioType: mimeType
                }
              }
            }
          }
        }
      }
    }
  }
`);

export const JournalSubscription = graphql(`
  subscription RunJournal($runId: ID!, $afterSeq: String) {
    journalEvents(runId: $runId, afterSeq: $afterSeq) {
      seq
      type
      at
      actor
      callId
      payload
    }
  }
`);

export const ResourceQuery = graphql(`
  query Resource($uri: String!) {
    resource(uri: $uri) {
      uri
      mimeType
      size
      text
      base64
    }
  }
`);
