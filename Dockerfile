FROM node:20-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
ENV HOST=0.0.0.0 PORT=4000
EXPOSE 4000
CMD ["npm", "start"]
