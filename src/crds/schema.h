// Schema: a builder for one node of an OpenAPI v3 structural schema, the `openAPIV3Schema` of a
// CustomResourceDefinition version (apiextensions.k8s.io/v1 JSONSchemaProps).
//
// A Schema starts as one of the node types below and is refined by chained calls, each adding
// one keyword; a child is copied in when added, so one Schema can be reused for several fields:
//
//   Schema::Object()
//       .Property("weight", Schema::Int32().Minimum(1).Maximum(100))
//       .Property("expireAfter", Schema::String().Pattern(kDurationOrNever).Default("720h"))
//       .Rule("has(self.weight)", "weight is required");
//
// The builder does not check that keywords fit the node's type (the API server decides what a
// keyword means on a node); ToJson() is the node as the CRD carries it, keys in the order added.
// Not thread-safe; a Schema is a value.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "crds/validation_rule.h"

namespace nodesmith::crds {

class Schema {
 public:
  static Schema Object();
  static Schema String();
  static Schema Boolean();
  static Schema Integer();   // no format
  static Schema Int32();     // integer, format int32
  static Schema Int64();     // integer, format int64
  static Schema DateTime();  // string, format date-time (RFC 3339)
  static Schema Array(const Schema& items);
  // An object whose keys are free and whose values all follow `values` (additionalProperties).
  static Schema Map(const Schema& values);
  // A resource.Quantity: an integer, or a string in the Kubernetes quantity syntax ("1.5Gi").
  static Schema Quantity();
  // An object that keeps whatever fields it is given (x-kubernetes-preserve-unknown-fields).
  static Schema FreeForm();
  // A value of any type, kept as given (x-kubernetes-preserve-unknown-fields, no type).
  static Schema Any();

  Schema& Description(std::string_view text);
  Schema& Property(const std::string& name, const Schema& schema);
  Schema& Required(const std::vector<std::string>& names);
  Schema& Enum(const std::vector<std::string>& values);
  Schema& Pattern(std::string_view regex);
  Schema& Format(std::string_view format);
  Schema& MinLength(int64_t n);
  Schema& MaxLength(int64_t n);
  Schema& Minimum(int64_t n);
  Schema& Maximum(int64_t n);
  Schema& MinItems(int64_t n);
  Schema& MaxItems(int64_t n);
  Schema& MaxProperties(int64_t n);
  // The value the API server fills in when the field is absent (structural defaulting).
  Schema& Default(const nlohmann::ordered_json& value);
  // x-kubernetes-list-type: "atomic", "set" or "map"; a map list names its keys.
  Schema& ListType(std::string_view type);
  Schema& ListMapKeys(const std::vector<std::string>& keys);
  // x-kubernetes-map-type: "atomic" or "granular".
  Schema& MapType(std::string_view type);
  Schema& PreserveUnknownFields();
  // Appends a CEL rule to x-kubernetes-validations.
  Schema& Rule(std::string_view rule, std::string_view message);
  Schema& Rule(const ValidationRule& rule);

  const nlohmann::ordered_json& ToJson() const { return json_; }

 private:
  explicit Schema(nlohmann::ordered_json json) : json_(std::move(json)) {}

  nlohmann::ordered_json json_;
};

}  // namespace nodesmith::crds
