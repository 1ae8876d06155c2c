#include "cloud/aws/query_protocol.h"

#include "cloud/aws/sigv4.h"

namespace nodesmith::aws {

QueryParams& QueryParams::AddList(const std::string& prefix, const std::vector<std::string>& values) {
  for (size_t i = 0; i < values.size(); ++i) Add(prefix + "." + std::to_string(i + 1), values[i]);
  return *this;
}

QueryParams& QueryParams::AddFilter(const std::string& name, const std::vector<std::string>& values) {
  std::string prefix = "Filter." + std::to_string(++filters_);
  Add(prefix + ".Name", name);
  return AddList(prefix + ".Value", values);
}

QueryParams& QueryParams::AddTags(const std::string& prefix,
                                  const std::vector<std::pair<std::string, std::string>>& tags) {
  for (size_t i = 0; i < tags.size(); ++i) {
    std::string p = prefix + "." + std::to_string(i + 1);
    Add(p + ".Key", tags[i].first);
    Add(p + ".Value", tags[i].second);
  }
  return *this;
}

std::string QueryParams::Encode(const std::string& action, const std::string& version) const {
  std::string out = "Action=" + UriEncode(action) + "&Version=" + UriEncode(version);
  for (const auto& [k, v] : params_) out += "&" + UriEncode(k) + "=" + UriEncode(v);
  return out;
}

std::string ChildText(pugi::xml_node node, const char* name) {
  return node.child(name).text().as_string();
}

AwsError DecodeXmlError(const HttpResponse& response) {
  AwsError e;
  pugi::xml_document doc;
  if (!doc.load_buffer(response.body.data(), response.body.size())) {
    e.message = response.body.substr(0, 200);
    return e;
  }
  pugi::xml_node root = doc.document_element();
  pugi::xml_node error;
  if (std::string(root.name()) == "Response") {  // EC2
    error = root.child("Errors").child("Error");
    e.request_id = ChildText(root, "RequestID");
  } else {  // ErrorResponse (AWS query)
    error = root.child("Error");
    e.request_id = ChildText(root, "RequestId");
    if (e.request_id.empty()) e.request_id = ChildText(root, "RequestID");
  }
  if (!error) error = root;  // <Error> at the top (some services)
  e.code = ChildText(error, "Code");
  e.message = ChildText(error, "Message");
  return e;
}

QueryClient::QueryClient(ServiceClient* service, std::string version)
    : service_(service), version_(std::move(version)) {}

core::Result<XmlAnswer> QueryClient::Call(const std::string& action, const QueryParams& params) {
  ServiceRequest request;
  request.operation = action;
  request.method = "POST";
  request.headers.emplace_back("Content-Type", "application/x-www-form-urlencoded; charset=utf-8");
  request.body = params.Encode(action, version_);
  auto answer = service_->Send(request, DecodeXmlError);
  if (!answer.ok()) return answer.status();
  XmlAnswer out;
  out.document = std::make_shared<pugi::xml_document>();
  pugi::xml_parse_result parsed = out.document->load_buffer(answer->body.data(), answer->body.size());
  if (!parsed) {
    return core::Status::Internal(service_->endpoint().signing_name + " " + action +
                                  ": the answer is not XML (" + parsed.description() + ")");
  }
  pugi::xml_node root = out.document->document_element();
  out.request_id = ChildText(root, "requestId");
  if (out.request_id.empty()) out.request_id = ChildText(root.child("ResponseMetadata"), "RequestId");
  // AWS query wraps the payload in <ActionResult>; EC2 puts it under the root.
  pugi::xml_node result = root.child((action + "Result").c_str());
  out.root = result ? result : root;
  return out;
}

}  // namespace nodesmith::aws
