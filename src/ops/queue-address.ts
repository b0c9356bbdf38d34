/**
 * Where the commands of the running service go (D-160): the Redis its workers consume (with its
 * password: the file is 0600, as DATA_DIR/redis/url), the queue prefix and the command shards, and
 * whether its database is the embedded one (lent to the CLI) or a Postgres the CLI must be told of.
 */
export interface ServiceQueuesAddress {
  redis_url: string;
  queue_prefix: string;
  command_shards: number;
  database: 'embedded' | 'postgres';
}

/** Where the CLI given `--base` asks the service for its queues (D-169). */
export const QUEUE_ADDRESS_PATH = '/ops/queue_address';
