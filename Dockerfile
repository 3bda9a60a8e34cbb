# The sluice image: the local platform and the worker daemon (one image, two commands).
FROM node:20-bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends python3 python3-venv make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
COPY scripts ./scripts
RUN npm install --no-audit --no-fund
COPY . .
ENV SLUICE_LOG_PRETTY=0
EXPOSE 8080 8288
CMD ["node", "bin/sluice.cjs", "help"]
