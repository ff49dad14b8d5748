// choose asks libaugur, through the RAII wrapper augur.hpp, for the
// configuration and launch plan of one shape, and for the model's top 3:
//
//	c++ -std=c++11 -Iinclude examples/cpp/choose.cpp -Lbin -laugur -Wl,-rpath,'$ORIGIN/bin' -o choose
//	./choose testdata/conv2d-pocl.augur 1920 1080 5 5
#include <cstdlib>
#include <iostream>
#include <vector>

#include "augur.hpp"

int main(int argc, char **argv) {
	if (argc < 2) {
		std::cerr << "usage: choose BUNDLE VALUE...\n";
		return 2;
	}
	try {
		augur::Chooser chooser(argv[1]);
		std::vector<int64_t> shape;
		for (int i = 2; i < argc; i++) {
			shape.push_back(std::strtoll(argv[i], nullptr, 10));
		}
		augur::Pick p = chooser.choose(shape);
		std::cout << "source: " << p.source << "\nconfig:";
		for (std::size_t i = 0; i < p.config.size(); i++) {
			std::cout << ' ' << p.names[i] << '=' << p.text[i]; // a string parameter's text, else the number
		}
		std::cout << "\nplan: dims=" << p.plan.dims << " global=" << p.plan.global[0] << 'x' << p.plan.global[1]
			  << " local=" << p.plan.local[0] << 'x' << p.plan.local[1] << "\nbuild options: " << p.plan.build_options
			  << '\n';
		std::cout << p.names[0] << " of the pick: " << p.param(p.names[0]) << "\n";
		const std::string &last = p.names.back();
		std::cout << last << " as the kernel gets it: " << p.param_text(last) << " (labels: "
			  << chooser.param_labels(p.names.size() - 1).size() << ")\n";
		std::vector<augur::Pick> top = chooser.candidates(shape, 3);
		for (std::size_t i = 0; i < top.size(); i++) {
			std::cout << "candidate " << i << ':';
			for (std::size_t j = 0; j < top[i].config.size(); j++) {
				std::cout << ' ' << top[i].config[j];
			}
			std::cout << " (" << top[i].source << ")\n";
		}
	} catch (const augur::Error &e) {
		std::cerr << "choose: " << e.what() << " (code " << e.code() << ")\n";
		return 1;
	}
	return 0;
}
