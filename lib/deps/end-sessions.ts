/**
 * What every function that ends sessions builds (lib/sessions/end-sessions.ts `EndSessionsDeps`):
 * the sessions, the user index that finds a user's sessions and refresh token families, those
 * families (revoked with them), and where the back-channel logout notices go. The `authorize`,
 * `logout` and `admin` containers each take these from here.
 */
import { DynamoDbRefreshTokenStore } from '../adapters/dynamodb/refresh-token-store';
import { DynamoDbSessionStore, DynamoDbUserIndex } from '../adapters/dynamodb/session-store';
import { logoutNotifierOf } from './logout-notifier';
import type { Container } from './secrets';
import type { Table } from './table';

export function sessionEndingAdapters(whole: Container, { documents, name }: Table) {
  return {
    sessions: new DynamoDbSessionStore(documents, name),
    userIndex: new DynamoDbUserIndex(documents, name),
    refreshTokens: new DynamoDbRefreshTokenStore(documents, name),
    logoutNotifier: logoutNotifierOf(whole),
  };
}
