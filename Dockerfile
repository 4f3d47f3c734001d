# Two stages: the first installs every dependency and builds dist/ (the server) and console/dist/
# (the approval console); the second holds production dependencies and those outputs only.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# Sources are not here yet, so `prepare` (the build) runs below instead.
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY . .
RUN npm run build

FROM node:20-bookworm-slim
ENV NODE_ENV=production HOST=0.0.0.0 PORT=4000 DATA_DIR=/data
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund --ignore-scripts && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY --from=build /app/console/dist ./console/dist
COPY drizzle ./drizzle
# PGlite's data directory when DATABASE_URL is unset; owned by the unprivileged user the server runs as.
RUN mkdir -p /data && chown node:node /data
VOLUME /data
USER node
EXPOSE 4000
HEALTHCHECK --interval=5s --timeout=3s --retries=20 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:4000/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# node itself is PID 1 (no npm, no shell): SIGTERM reaches the server, which drains and exits.
CMD ["node", "dist/app/main.js"]
