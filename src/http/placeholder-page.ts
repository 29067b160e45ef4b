// The page served at `GET /` when the dashboard bundle (dist/web/index.html, built by
// `npm run build`) is missing, e.g. in a checkout that was never built: static, no data, no
// script, so it is safe to serve without a token (docs/http-api.md "Authentication"). Its one
// inline style is a constant of its own, so the page's policy can allow it by hash.

/** The placeholder's inline `<style>` content, exactly as served. */
export const PLACEHOLDER_STYLE =
  'body{font-family:system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem;color:#222}code{background:#eee;padding:0 .2em}';

export const PLACEHOLDER_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>yacron2</title>
<style>${PLACEHOLDER_STYLE}</style>
</head>
<body>
<h1>yacron2</h1>
<p>The web dashboard is not built in this installation: run <code>npm run build</code>.</p>
<p>The control API is available: try <code>GET /status</code>, <code>GET /jobs</code> or
<code>GET /version</code> (with <code>Authorization: Bearer &lt;token&gt;</code> when
<code>web.authToken</code> is set).</p>
</body>
</html>
`;
