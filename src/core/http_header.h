// One line of an HTTP/1.1 answer's header block as libcurl hands it over ("Name: value\r\n"),
// read the same way by the Kubernetes client and the AWS clients.
#pragma once

#include <string>
#include <string_view>

namespace nodesmith::core {

// A header field, its name lower-cased (HTTP names are case-insensitive) and its value without
// the surrounding blanks and line end.
struct HttpHeaderField {
  std::string name;
  std::string value;
};

// False for what is not a field: the status line, the blank line that ends the block.
bool ParseHttpHeaderLine(std::string_view line, HttpHeaderField* field);

// True for a status line ("HTTP/1.1 200 OK"): the header block of a new answer begins (after a
// 100 Continue, or a redirect libcurl followed), and what came before belongs to another answer.
bool IsHttpStatusLine(std::string_view line);

}  // namespace nodesmith::core
