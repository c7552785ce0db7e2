// The spec the scripts read: the first argument (a path or a URL), else the
// repository's openapi/openapi.json next to this package.
import { fileURLToPath } from "node:url";

export const spec = process.argv[2] ?? fileURLToPath(new URL("../../../openapi/openapi.json", import.meta.url));
