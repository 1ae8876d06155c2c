// Signature Version 4: the signature every AWS request carries.
//
// SignRequest adds X-Amz-Date, X-Amz-Security-Token (for temporary credentials) and
// Authorization to a request, signing every header it has. The steps are exposed so the AWS test
// suite's vectors can check each one. Pure functions: the time is passed in.
//
// The rules are those of the AWS SDKs for every service but S3 (nodesmith signs no S3 request),
// as botocore implements them; where the spec leaves room, botocore's choice is taken, because
// that is what the services are known to accept:
//   - the canonical URI is the path with dot segments removed and runs of slashes collapsed
//     ("/a/./b//c/.." -> "/a/b"; a trailing slash stays only when a segment remains), then
//     URI-encoded with '/' kept. The path is already encoded as sent, so it is encoded twice:
//     "/a%20b" signs as "/a%2520b", as AWS's documentation asks for non-S3 services;
//   - the canonical query is every '&'-separated parameter, name and value decoded and
//     re-encoded per RFC 3986 ("+" is a literal plus), sorted by encoded name, then value;
//   - header names are lower-cased; values are trimmed with inner runs of whitespace collapsed
//     to one space; values of a repeated header are joined with ',' in the order given;
//   - User-Agent, Expect and X-Amzn-Trace-Id are never signed: proxies and tracers rewrite them;
//   - an X-Amz-Content-SHA256 header, when present, is the payload hash (UNSIGNED-PAYLOAD).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cloud/aws/credentials.h"
#include "core/time.h"

namespace nodesmith::aws {

// A request as it will be sent. Invariant the signer relies on: `headers` has a Host header
// (the endpoint's host, with the port when it is not the scheme's default); the signer does not
// derive one from a URL it never sees.
struct SigningRequest {
  std::string method;
  std::string path;   // as sent, percent-encoded, without the query, e.g. "/" or "/a%20b"
  std::string query;  // as sent, without "?", e.g. "Action=DescribeRegions&Version=2016-11-15"
  std::vector<std::pair<std::string, std::string>> headers;  // as sent, in order
  std::string body;
};

struct SigningScope {
  std::string region;   // "us-east-1"
  std::string service;  // "ec2", "sts", "sqs", ...
  core::Time time;
};

// The canonical request of the SigV4 spec (method, normalised path, sorted query, lower-cased
// trimmed headers, signed header list, hex SHA-256 of the body). Signs the headers as they are:
// the X-Amz-Date (and token) the signature covers must already be among them.
std::string CanonicalRequest(const SigningRequest& request);
std::string StringToSign(const SigningRequest& request, const SigningScope& scope);
// The Authorization header's value.
std::string AuthorizationHeader(const SigningRequest& request, const SigningScope& scope,
                                const Credentials& credentials);
// Adds X-Amz-Date, X-Amz-Security-Token when the credentials have one, and Authorization, each
// replacing any header of that name already there (a retried request is signed anew) and
// appended in that order. The token is signed, as botocore signs it. A Date header is signed
// like any other and left alone; nodesmith never sends one.
// REQUIRES: request.headers has a Host header.
void SignRequest(SigningRequest& request, const SigningScope& scope, const Credentials& credentials);

// Helpers the protocols share: lower-case hex SHA-256, and RFC 3986 percent-encoding of a
// query or form value (unreserved characters kept, upper-case hex digits).
std::string Sha256Hex(std::string_view data);
std::string UriEncode(std::string_view value, bool encode_slash = true);
// "20150830T123600Z"
std::string AmzDate(core::Time t);

}  // namespace nodesmith::aws
