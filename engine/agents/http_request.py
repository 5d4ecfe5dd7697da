"""One HTTP request, made where the agent is. Neither agent imports it: the local agent's helper
runs its text (as the run user), and the SSH agent sends it whole as a ``python3 -c`` script,
which reads the request as JSON from its standard input and writes the answer to its standard
output. Only the standard library, so that it runs with any Python 3 on the server.

A request: ``{"method", "url", "headers": {...}, "body": base64 or null, "timeout": seconds,
"insecure": bool}``. An answer: ``{"status", "reason", "body": base64}`` or ``{"error": text}``.
"""

import base64
import http.client
import json
import ssl
import sys
import urllib.error
import urllib.request


def send(request):
    url = request["url"]
    body = request.get("body")
    context = ssl._create_unverified_context() if request.get("insecure") else None
    prepared = urllib.request.Request(
        url,
        data=base64.b64decode(body) if body is not None else None,
        method=request["method"],
        headers=request.get("headers") or {},
    )
    try:
        with urllib.request.urlopen(
            prepared, timeout=request.get("timeout", 60), context=context
        ) as reply:
            status, reason, data = reply.status, reply.reason, reply.read()
    except urllib.error.HTTPError as error:
        status, reason, data = error.code, str(error.reason), error.read()
    except urllib.error.URLError as error:
        return {"error": f"cannot reach {url}: {error.reason}"}
    except TimeoutError:
        return {"error": f"{url} did not answer within {request.get('timeout', 60)} seconds"}
    except (http.client.HTTPException, ValueError, OSError) as error:
        return {"error": f"cannot send to {url}: {error}"}
    return {"status": status, "reason": reason, "body": base64.b64encode(data).decode("ascii")}


if __name__ == "__main__":
    json.dump(send(json.load(sys.stdin)), sys.stdout)
