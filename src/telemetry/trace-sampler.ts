/**
 * Which traces are recorded, read from the standard variables as the SDK reads them:
 * OTEL_TRACES_SAMPLER (default parentbased_always_on; always_on, always_off, traceidratio and
 * their parentbased_ forms) and OTEL_TRACES_SAMPLER_ARG (the ratio, 0 to 1, default 1). A
 * parent-based sampler makes a child follow its parent's decision (the flag in the context a
 * job carries); the others decide for every span alike from its trace id.
 */
export interface RootSampler {
  readonly followsParent: boolean;
  sampleRoot(traceId: string): boolean;
  readonly description: string;
}

export function samplerFromEnv(
  env: NodeJS.ProcessEnv = process.env,
  warn: (message: string) => void = (m) => process.emitWarning(m),
): RootSampler {
  const name = (env.OTEL_TRACES_SAMPLER ?? '').trim().toLowerCase() || 'parentbased_always_on';
  const followsParent = name.startsWith('parentbased_');
  const root = followsParent ? name.slice('parentbased_'.length) : name;
  if (root === 'always_on') return { followsParent, sampleRoot: () => true, description: name };
  if (root === 'always_off') return { followsParent, sampleRoot: () => false, description: name };
  if (root === 'traceidratio') {
    const ratio = ratioFrom(env.OTEL_TRACES_SAMPLER_ARG, warn);
    return { followsParent, sampleRoot: ratioSampler(ratio), description: `${name} ${ratio}` };
  }
  warn(`OTEL_TRACES_SAMPLER=${name} is not a sampler; using parentbased_always_on`);
  return { followsParent: true, sampleRoot: () => true, description: 'parentbased_always_on' };
}

function ratioFrom(text: string | undefined, warn: (message: string) => void): number {
  const ratio = text === undefined || text.trim() === '' ? NaN : Number(text);
  if (!(ratio >= 0 && ratio <= 1)) {
    if (text !== undefined) warn(`OTEL_TRACES_SAMPLER_ARG=${text} is not a ratio from 0 to 1; using 1`);
    return 1;
  }
  return ratio;
}

/**
 * The trace id's four 32-bit words XORed, against ratio × (2³² − 1): the SDK's TraceIdRatioBased rule,
 * so a trace sampled here is sampled by every other service that samples by the same ratio.
 */
function ratioSampler(ratio: number): (traceId: string) => boolean {
  const bound = ratio === 1 ? 0x100000000 : Math.floor(ratio * 0xffffffff);
  return (traceId) => {
    let folded = 0;
    for (let i = 0; i < 32; i += 8) folded = (folded ^ parseInt(traceId.slice(i, i + 8), 16)) >>> 0;
    return folded < bound;
  };
}
