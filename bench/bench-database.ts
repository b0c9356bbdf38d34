import postgres from 'postgres';

/** Drops and creates a benchmark database; refuses any whose name does not say it is for this. */
export async function recreateBenchDatabase(url: string): Promise<void> {
  const name = new URL(url).pathname.slice(1);
  if (!name.includes('bench')) throw new Error(`refusing to recreate database "${name}": its name must contain "bench"`);
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const sql = postgres(admin.toString(), { max: 1, onnotice: () => {} });
  try {
    await sql.unsafe(`drop database if exists ${name} with (force)`);
    await sql.unsafe(`create database ${name}`);
  } finally {
    await sql.end();
  }
}
