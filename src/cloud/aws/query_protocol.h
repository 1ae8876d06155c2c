// The EC2 and AWS query protocols: form-encoded requests, XML answers.
//
// EC2 (version 2016-11-15) flattens lists as Name.N and answers errors as
// <Response><Errors><Error><Code/><Message/></Error></Errors><RequestID/></Response>; STS and IAM
// (the "AWS query" protocol) flatten lists as Name.member.N and answer
// <ErrorResponse><Error><Code/><Message/></Error><RequestId/></ErrorResponse>. QueryParams keeps
// parameters in the order given; the body is Action, Version, then them, percent-encoded.
// An answer is an XmlAnswer: the parsed document, its root element and its request id.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <pugixml.hpp>

#include "cloud/aws/service_client.h"

namespace nodesmith::aws {

class QueryParams {
 public:
  QueryParams& Add(std::string key, std::string value) {
    params_.emplace_back(std::move(key), std::move(value));
    return *this;
  }
  // prefix.1=v1&prefix.2=v2... (EC2 lists; for the AWS query protocol pass "Name.member").
  QueryParams& AddList(const std::string& prefix, const std::vector<std::string>& values);
  // Filter.N.Name=name&Filter.N.Value.M=value... with N the next free filter number.
  QueryParams& AddFilter(const std::string& name, const std::vector<std::string>& values);
  // TagSpecification / Tag lists: prefix.N.Key / prefix.N.Value.
  QueryParams& AddTags(const std::string& prefix,
                       const std::vector<std::pair<std::string, std::string>>& tags);

  const std::vector<std::pair<std::string, std::string>>& params() const { return params_; }
  // "Action=..&Version=..&k=v..." percent-encoded as the SDKs do.
  std::string Encode(const std::string& action, const std::string& version) const;

 private:
  std::vector<std::pair<std::string, std::string>> params_;
  int filters_ = 0;
};

struct XmlAnswer {
  std::shared_ptr<pugi::xml_document> document;
  pugi::xml_node root;  // <DescribeSubnetsResponse> or, for AWS query, its <...Result> child
  std::string request_id;
};

// Decodes either error shape; a body that is not XML keeps the HTTP status and a body excerpt.
AwsError DecodeXmlError(const HttpResponse& response);

class QueryClient {
 public:
  // `version`: the API version ("2016-11-15" for EC2, "2011-06-15" STS, "2010-05-08" IAM).
  // REQUIRES: `service` outlives the client.
  QueryClient(ServiceClient* service, std::string version);

  core::Result<XmlAnswer> Call(const std::string& action, const QueryParams& params);
  ServiceClient& service() { return *service_; }

 private:
  ServiceClient* service_;
  std::string version_;
};

// Text of the first child element named `name`, or "" (a convenience for the typed clients).
std::string ChildText(pugi::xml_node node, const char* name);

}  // namespace nodesmith::aws
