// augur.hpp: a small RAII wrapper of libaugur's C API (augur.h) for C++11
// and later. Errors throw augur::Error, which carries the AUGUR_ERR_* code.
//
//	augur::Chooser chooser("conv2d.augur", "nvidia-h200");
//	augur::Pick p = chooser.choose({1920, 1080, 5, 5});
//	int xwg = p.param("Xwg");
//	build(p.plan.build_options); launch(p.plan.global, p.plan.local);
//
// A Chooser is movable, not copyable; its destructor closes the handle.
// Its methods are safe to call from many threads at once.
#ifndef AUGUR_HPP
#define AUGUR_HPP

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "augur.h"

namespace augur {

// Error is a failed libaugur call: what() is augur_last_error's message.
class Error : public std::runtime_error {
public:
	Error(int code, const std::string &msg) : std::runtime_error(msg), code_(code) {}
	// code is the call's AUGUR_ERR_* return code.
	int code() const { return code_; }

private:
	int code_;
};

namespace detail {
inline void check(int rc) {
	if (rc != AUGUR_OK) {
		throw Error(rc, augur_last_error());
	}
}

inline std::vector<std::string> split(const std::string &s) {
	std::vector<std::string> out;
	std::string::size_type start = 0;
	while (start <= s.size() && !s.empty()) {
		std::string::size_type end = s.find(',', start);
		if (end == std::string::npos) {
			end = s.size();
		}
		out.push_back(s.substr(start, end - start));
		start = end + 1;
	}
	return out;
}
} // namespace detail

// Pick is one configuration with its launch plan.
struct Pick {
	std::vector<std::string> names; // the parameters' names, in config order
	std::vector<int64_t> config;
	std::string source; // "model:<slug>", "fleet", "table", "wisdom", "copy:<slug>", "near", "fixed", "reference" (augur_config.source)
	double log_speedup = 0;
	double outside_octaves = 0;
	bool clamped = false; // the pick's prediction was clamped to the model's training range
	augur_plan plan = augur_plan();
	// values holds what the configuration sets each argument of
	// Chooser::plan_value_names to (a scalar's value, a local buffer's
	// bytes), in that order; empty for kernels with none.
	std::vector<std::pair<std::string, double>> values;
	// text holds each parameter's value as the kernel gets it, in config
	// order: a spec's string or float parameter's label (config holds its
	// number), else the number itself.
	std::vector<std::string> text;

	// param returns the value of the named parameter; throws
	// std::out_of_range for a name the kernel lacks.
	int64_t param(const std::string &name) const {
		for (std::size_t i = 0; i < names.size() && i < config.size(); i++) {
			if (names[i] == name) {
				return config[i];
			}
		}
		throw std::out_of_range("augur: no parameter " + name);
	}
	// param_text returns the named parameter's value as the kernel gets
	// it ("fast" for a string parameter); throws std::out_of_range for a
	// name the kernel lacks.
	const std::string &param_text(const std::string &name) const {
		for (std::size_t i = 0; i < names.size() && i < text.size(); i++) {
			if (names[i] == name) {
				return text[i];
			}
		}
		throw std::out_of_range("augur: no parameter " + name);
	}
};

// Chooser owns one libaugur handle.
class Chooser {
public:
	// Opens the bundle at path for the device named device ("" for none).
	explicit Chooser(const std::string &path, const std::string &device = "")
	    : Chooser(open_file(path, device)) {}

	// Opens as opt says (a wisdom file, the device's features as JSON...).
	explicit Chooser(const augur_open_options &opt) : Chooser(open(opt)) {}

	~Chooser() {
		if (h_ != 0) {
			augur_close(h_);
		}
	}
	Chooser(const Chooser &) = delete;
	Chooser &operator=(const Chooser &) = delete;
	Chooser(Chooser &&o) noexcept
	    : h_(o.h_), shape_names_(std::move(o.shape_names_)), param_names_(std::move(o.param_names_)),
	      value_names_(std::move(o.value_names_)), labels_(std::move(o.labels_)) {
		o.h_ = 0;
	}
	Chooser &operator=(Chooser &&o) noexcept {
		if (this != &o) {
			if (h_ != 0) {
				augur_close(h_);
			}
			h_ = o.h_;
			o.h_ = 0;
			shape_names_ = std::move(o.shape_names_);
			param_names_ = std::move(o.param_names_);
			value_names_ = std::move(o.value_names_);
			labels_ = std::move(o.labels_);
		}
		return *this;
	}

	// The names of the shape's values and of the parameters, in order.
	const std::vector<std::string> &shape_names() const { return shape_names_; }
	const std::vector<std::string> &param_names() const { return param_names_; }
	// The kernel arguments a configuration sets (a spec's scalar or local
	// buffer sized by the parameters): each Pick's values.
	const std::vector<std::string> &plan_value_names() const { return value_names_; }

	// param_labels returns what each number of parameter i stands for (a
	// spec's string or float parameter, numbered 0, 1, ... in the spec's
	// order); empty where the values are the numbers themselves.
	const std::vector<std::string> &param_labels(std::size_t i) const { return labels_.at(i); }

	// plan_value returns what config sets the argument name to on the shape.
	double plan_value(const std::vector<int64_t> &shape, const std::vector<int64_t> &config, const std::string &name) const {
		double v = 0;
		detail::check(augur_plan_value(h_, shape.data(), static_cast<int32_t>(shape.size()), config.data(),
					       static_cast<int32_t>(config.size()), name.c_str(), &v));
		return v;
	}

	// choose returns the pick for the shape (values in shape_names order).
	Pick choose(const std::vector<int64_t> &shape) const {
		augur_config c;
		augur_plan p;
		detail::check(augur_choose(h_, shape.data(), static_cast<int32_t>(shape.size()), &c, &p));
		return pick(c, p, shape);
	}

	// candidates returns up to k of the model's best configurations, the
	// pick first.
	std::vector<Pick> candidates(const std::vector<int64_t> &shape, int k) const {
		if (k < 1) {
			throw Error(AUGUR_ERR_ARG, "augur: candidates: k must be >= 1");
		}
		std::vector<augur_config> cs(static_cast<std::size_t>(k));
		std::vector<augur_plan> ps(static_cast<std::size_t>(k));
		int32_t n = 0;
		detail::check(augur_candidates(h_, shape.data(), static_cast<int32_t>(shape.size()), k, cs.data(), ps.data(), &n));
		std::vector<Pick> out;
		for (int32_t i = 0; i < n; i++) {
			out.push_back(pick(cs[i], ps[i], shape));
		}
		return out;
	}

	// record stores a measurement in the chooser's wisdom file.
	void record(const std::vector<int64_t> &shape, const std::vector<int64_t> &config, double time_ns) const {
		detail::check(augur_record(h_, shape.data(), static_cast<int32_t>(shape.size()), config.data(),
					   static_cast<int32_t>(config.size()), time_ns));
	}

	// refresh reads the records other choosers and processes appended to
	// the wisdom file since this one last read it.
	void refresh() const { detail::check(augur_refresh(h_)); }

	// handle returns the C handle, for calls the wrapper lacks.
	augur_handle handle() const { return h_; }

private:
	explicit Chooser(augur_handle h) : h_(h) {
		try {
			shape_names_ = names(&augur_shape_names);
			param_names_ = names(&augur_param_names);
			value_names_ = names(&augur_plan_value_names);
			for (std::size_t i = 0; i < param_names_.size(); i++) {
				labels_.push_back(labels(static_cast<int32_t>(i)));
			}
		} catch (...) {
			augur_close(h_);
			throw;
		}
	}

	// abi refuses a libaugur built with other structs than this header's.
	static void abi() {
		if (augur_abi() != AUGUR_ABI) {
			throw Error(AUGUR_ERR_UNSUPPORTED, "libaugur has ABI " + std::to_string(augur_abi()) +
								   ", this header AUGUR_ABI " + std::to_string(AUGUR_ABI) +
								   ": rebuild against the library's own header");
		}
	}

	static augur_handle open_file(const std::string &path, const std::string &device) {
		abi();
		augur_handle h = 0;
		detail::check(augur_open_file(path.c_str(), device.empty() ? nullptr : device.c_str(), &h));
		return h;
	}

	static augur_handle open(const augur_open_options &opt) {
		abi();
		augur_handle h = 0;
		detail::check(augur_open(&opt, &h));
		return h;
	}

	std::vector<std::string> names(int (*get)(augur_handle, char *, size_t, int32_t *)) const {
		std::vector<char> buf(256);
		for (;;) {
			int rc = get(h_, buf.data(), buf.size(), nullptr);
			if (rc == AUGUR_ERR_TRUNCATED) {
				buf.resize(buf.size() * 4);
				continue;
			}
			detail::check(rc);
			return detail::split(std::string(buf.data()));
		}
	}

	std::vector<std::string> labels(int32_t param) const {
		std::vector<char> buf(256);
		for (;;) {
			int32_t n = 0;
			int rc = augur_param_labels(h_, param, buf.data(), buf.size(), &n, nullptr);
			if (rc == AUGUR_ERR_TRUNCATED) {
				buf.resize(buf.size() * 4);
				continue;
			}
			detail::check(rc);
			std::vector<std::string> out;
			for (const char *at = buf.data(); n > 0; n--) {
				out.emplace_back(at);
				at += out.back().size() + 1;
			}
			return out;
		}
	}

	Pick pick(const augur_config &c, const augur_plan &p, const std::vector<int64_t> &shape) const {
		Pick out;
		out.names = param_names_;
		out.config.assign(c.values, c.values + c.n);
		out.source = c.source;
		out.log_speedup = c.log_speedup;
		out.outside_octaves = c.outside_octaves;
		out.clamped = c.clamped != 0;
		out.plan = p;
		for (std::size_t i = 0; i < out.config.size(); i++) {
			int64_t v = out.config[i];
			if (i < labels_.size() && v >= 0 && static_cast<std::size_t>(v) < labels_[i].size()) {
				out.text.push_back(labels_[i][static_cast<std::size_t>(v)]);
			} else {
				out.text.push_back(std::to_string(v));
			}
		}
		for (const std::string &name : value_names_) {
			out.values.emplace_back(name, plan_value(shape, out.config, name));
		}
		return out;
	}

	augur_handle h_ = 0;
	std::vector<std::string> shape_names_;
	std::vector<std::string> param_names_;
	std::vector<std::string> value_names_;
	std::vector<std::vector<std::string>> labels_; // by parameter; empty for a numeric one
};

} // namespace augur

#endif // AUGUR_HPP
