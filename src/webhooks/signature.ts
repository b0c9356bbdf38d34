// Lives in the producer package (packages/client) so receivers verify with the code the service signs with.
export * from '../../packages/client/src/webhook-signature.ts';
