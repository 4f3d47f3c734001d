import { graphql } from '../gql';

export const MeQuery = graphql(`
  query Me {
    whoami {
      name
      role
      users
      profiles
      userId
      idp {
        issuer
        subject
        displayName
      }
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
    turnId
    approvalsRequired
    approvals {
      decidedBy
      person {
        issuer
        subject
        displayName
      }
      decidedAt
      reason
    }
    run {
      id
      userId
      profileId
    }
    decision {
      approved
      decidedBy
      person {
        issuer
        subject
        displayName
      }
      decidedAt
      reason
      feedback
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
  mutation Approve(
    $id: ID!
    $reason: String
    $argumentsHash: String
    $editedArguments: JSON
    $scope: GrantScope
    $grantConditions: [PolicyConditionInput!]
    $grantProfileId: ID
    $link: String
  ) {
    approveToolCall(
      id: $id
      reason: $reason
      argumentsHash: $argumentsHash
      editedArguments: $editedArguments
      scope: $scope
      grantConditions: $grantConditions
      grantProfileId: $grantProfileId
      link: $link
    ) {
      id
      status
      approvalsRequired
      approvals {
        decidedBy
        person {
          issuer
          subject
          displayName
        }
      }
      replacedBy {
        id
        status
      }
    }
  }
`);

export const DenyMutation = graphql(`
  mutation Deny(
    $id: ID!
    $reason: String
    $argumentsHash: String
    $feedback: String
    $allowRetry: Boolean
    $link: String
  ) {
    denyToolCall(
      id: $id
      reason: $reason
      argumentsHash: $argumentsHash
      feedback: $feedback
      allowRetry: $allowRetry
      link: $link
    ) {
      id
      status
    }
  }
`);

export const GrantPreviewQuery = graphql(`
  query GrantPreview($callId: ID!, $scope: GrantScope!, $conditions: [PolicyConditionInput!], $profileId: ID) {
    grantPreview(callId: $callId, scope: $scope, conditions: $conditions, profileId: $profileId) {
      scope
      toolName
      layer
      userId
      profileId
      runId
      rule
      summary
    }
  }
`);

export const GrantsQuery = graphql(`
  query Grants($userId: ID, $runId: ID, $includeRevoked: Boolean) {
    grants(userId: $userId, runId: $runId, includeRevoked: $includeRevoked) {
      ...GrantFields
    }
  }
`);

export const GrantFields = graphql(`
  fragment GrantFields on Grant {
    id
    scope
    toolName
    conditions {
      pointer
      operator
      value
      path
    }
    runId
    userId
    profileId
    ruleId
    createdBy
    createdAt
    revokedAt
    revokedBy
    sourceCall {
      id
    }
  }
`);

export const RevokeGrantMutation = graphql(`
  mutation RevokeGrant($id: ID!) {
    revokeGrant(id: $id) {
      ...GrantFields
    }
  }
`);

export const BatchCallFields = graphql(`
  fragment BatchCallFields on ToolCall {
    id
    name
    status
    arguments
    argumentsHash
    approvalsRequired
    approvals {
      decidedBy
      person {
        issuer
        subject
        displayName
      }
    }
    decision {
      approved
      decidedBy
      person {
        issuer
        subject
        displayName
      }
      reason
      feedback
    }
    approvalRequest {
      argumentsSummary
      argumentsHash
    }
  }
`);

export const ApprovalBatchQuery = graphql(`
  query ApprovalBatch($turnId: ID!) {
    approvalBatch(turnId: $turnId) {
      turnId
      pending
      run {
        id
        userId
      }
      calls {
        ...BatchCallFields
      }
    }
  }
`);

export const DecideBatchMutation = graphql(`
  mutation DecideBatch($turnId: ID!, $input: DecideApprovalBatchInput!) {
    decideApprovalBatch(turnId: $turnId, input: $input) {
      batch {
        turnId
        pending
        calls {
          ...BatchCallFields
        }
      }
      decided {
        id
        status
      }
      conflicts {
        callId
        status
        message
      }
    }
  }
`);

export const CallPageFields = graphql(`
  fragment CallPageFields on ToolCall {
    ...QueueCallFields
    edit {
      editedBy
      person {
        issuer
        subject
        displayName
      }
      editedAt
      reason
      diff
    }
    replaces {
      id
      status
      arguments
    }
    replacedBy {
      id
      status
      arguments
    }
  }
`);

export const CallQuery = graphql(`
  query CallPage($id: ID!) {
    toolCall(id: $id) {
      ...CallPageFields
    }
  }
`);

export const ApprovalLinkQuery = graphql(`
  query ApprovalLinkPage($token: String!) {
    approvalLink(token: $token) {
      expiresAt
      usedAt
      call {
        ...CallPageFields
      }
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
      mcpClient {
        name
        version
        server
      }
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
            replacedBy {
              id
            }
            replaces {
              id
            }
            decision {
              approved
              decidedBy
              person {
                issuer
                subject
                displayName
              }
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
