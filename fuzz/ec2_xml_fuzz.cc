// What an EC2, IAM or STS endpoint answers, on arbitrary text: the body read as an error envelope
// (DecodeXmlError: EC2's <Response><Errors>, the query protocol's <ErrorResponse>), then as
// QueryClient::Call reads a DescribeInstanceTypes answer and as the live catalog decodes it
// (DecodeInstanceTypeItem per instanceTypeSet item, then the InstanceTypes with capacity,
// overhead, requirements and an offering in two zones). Every step must end in a value or a clean
// error: the numbers are EC2's to choose, and none of them may overflow the arithmetic.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <pugixml.hpp>

#include "cloud/aws/instance_type_decoder.h"
#include "cloud/aws/pricing.h"
#include "cloud/aws/query_protocol.h"
#include "cloud/ec2_overhead.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace aws = nodesmith::aws;
  const std::string body(reinterpret_cast<const char*>(data), size);
  aws::HttpResponse response{400, {{"x-amzn-requestid", "req-1"}}, body};
  (void)aws::DecodeXmlError(response).ToStatus();

  // As QueryClient::Call reads a 200 answer.
  aws::XmlAnswer answer;
  answer.document = std::make_shared<pugi::xml_document>();
  if (!answer.document->load_buffer(body.data(), body.size())) return 0;
  pugi::xml_node root = answer.document->document_element();
  answer.request_id = aws::ChildText(root, "requestId");
  pugi::xml_node result = root.child("DescribeInstanceTypesResult");
  answer.root = result ? result : root;

  std::vector<aws::InstanceTypeOffering> offerings;
  for (pugi::xml_node item : answer.root.child("instanceTypeSet").children("item")) {
    auto spec = aws::DecodeInstanceTypeItem(item);
    if (spec.ok()) (void)spec->View();
    const std::string type = aws::ChildText(item, "instanceType");
    offerings.push_back({type, "us-west-2a"});
    offerings.push_back({type, "us-west-2b"});
  }
  aws::PriceBook prices;
  prices.AddSpotPrice({"m5.large", "us-west-2a", 0.041, "2026-12-01T00:00:00Z"});
  auto types = aws::LiveInstanceTypes({answer}, offerings, prices, "us-west-2",
                                      nodesmith::cloud::Ec2NodeSettings{});
  (void)types;
  return 0;
}
