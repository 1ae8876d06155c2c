#!/usr/bin/python3
"""Signs requests with botocore's SigV4Auth: the reference side of sigv4_test's differential test.

Reads from stdin a JSON list of requests, each
  {"method", "url", "headers": [[name, value], ...], "body_hex", "region", "service",
   "access_key", "secret_key", "token", "time": "2015-08-30T12:36:00Z"}
and writes to stdout a JSON list with, for each,
  {"canonical_request", "string_to_sign", "authorization", "headers": [[name, value], ...]}
the last being the request's headers once botocore has signed it.

Run by Debian's /usr/bin/python3 with python3-botocore, not the test virtualenv: the point is an
independent signer the AWS services are known to accept.
"""

import datetime
import json
import sys
import types

import botocore.auth
import botocore.awsrequest
import botocore.credentials

ISO_TIME = '%Y-%m-%dT%H:%M:%SZ'


class _FrozenClock:
    """Stands in for the datetime module inside botocore.auth, whose add_auth reads the wall clock
    itself (datetime.datetime.utcnow()) and overwrites any timestamp set beforehand."""

    def __init__(self):
        self.frozen = None
        clock = self

        class FrozenDatetime(datetime.datetime):
            @classmethod
            def utcnow(cls):
                return clock.frozen

            @classmethod
            def now(cls, tz=None):  # newer botocore: datetime.datetime.now(datetime.timezone.utc)
                return clock.frozen if tz is None else clock.frozen.replace(tzinfo=tz)

        self.module = types.SimpleNamespace(datetime=FrozenDatetime, timezone=datetime.timezone)


class RecordingSigV4Auth(botocore.auth.SigV4Auth):
    """SigV4Auth that keeps the intermediate strings add_auth only logs."""

    def canonical_request(self, request):
        self.recorded_canonical_request = super().canonical_request(request)
        return self.recorded_canonical_request

    def string_to_sign(self, request, canonical_request):
        self.recorded_string_to_sign = super().string_to_sign(request, canonical_request)
        return self.recorded_string_to_sign


def sign(clock, spec):
    clock.frozen = datetime.datetime.strptime(spec['time'], ISO_TIME)
    request = botocore.awsrequest.AWSRequest(
        method=spec['method'], url=spec['url'], data=bytes.fromhex(spec['body_hex']))
    # Assigned one by one: HTTPHeaders appends, so a repeated header keeps every value in order.
    for name, value in spec['headers']:
        request.headers[name] = value
    credentials = botocore.credentials.Credentials(
        spec['access_key'], spec['secret_key'], spec['token'] or None)
    auth = RecordingSigV4Auth(credentials, spec['service'], spec['region'])
    auth.add_auth(request)
    return {
        'canonical_request': auth.recorded_canonical_request,
        'string_to_sign': auth.recorded_string_to_sign,
        'authorization': request.headers['Authorization'],
        'headers': [[name, value] for name, value in request.headers.items()],
    }


def main():
    specs = json.loads(sys.stdin.buffer.read())
    clock = _FrozenClock()
    botocore.auth.datetime = clock.module
    json.dump([sign(clock, spec) for spec in specs], sys.stdout)
    sys.stdout.write('\n')


if __name__ == '__main__':
    main()
