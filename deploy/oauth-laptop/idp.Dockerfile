# A development identity provider for the laptop quick-start (docs/oauth.md): oauth2-mock-server,
# installed from its npm package. Never for production: it signs anyone in.
FROM node:24-trixie-slim
WORKDIR /idp
RUN npm install --no-audit --no-fund --ignore-scripts oauth2-mock-server@9.3.0 && npm cache clean --force
COPY idp.mjs /idp/
USER 65524:65524
EXPOSE 9400
CMD ["node", "/idp/idp.mjs"]
