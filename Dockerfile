FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
# postinstall repairs the Postgres driver (docs/RELIABILITY.md)
COPY scripts/patch-postgres.mjs ./scripts/
RUN npm ci --omit=dev --no-audit --no-fund
COPY bin ./bin
COPY src ./src
COPY workers ./workers
COPY machines ./machines
COPY drizzle ./drizzle
COPY fixtures ./fixtures
USER node
EXPOSE 8080
ENTRYPOINT ["node", "bin/fulfil.mjs"]
CMD ["start"]
