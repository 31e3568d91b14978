/**
 * `connectionString` with PostgreSQL's `idle_in_transaction_session_timeout` set to `ms` for every
 * connection opened from it, at the connection's start (libpq's `options`): the server ends a
 * transaction left idle that long, and the locks it held go with it. Given this way to DBOS, it
 * sees the setting made and does not make it itself: DBOS otherwise sends it as a query on each
 * new connection of its pool, at once, while the query the connection was opened for is sent too,
 * the overlap `pg` warns about ("Calling client.query() when the client is already executing a
 * query") and refuses from version 9. A connection string that is not a URL is returned as it is.
 *
 * @example
 * withIdleTransactionTimeout('postgresql://app@db/app', 3_000);
 * // 'postgresql://app@db/app?options=-c+idle_in_transaction_session_timeout%3D3000'
 */
export function withIdleTransactionTimeout(connectionString: string, ms: number): string {
  if (!URL.canParse(connectionString)) return connectionString;
  const url = new URL(connectionString);
  const before = url.searchParams.get('options');
  const setting = `-c idle_in_transaction_session_timeout=${ms}`;
  url.searchParams.set('options', before === null ? setting : `${before} ${setting}`);
  return url.toString();
}
