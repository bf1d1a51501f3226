// C ABI shim around Vabamorf's analyser + disambiguator (LGPL sources in third_party/vabamorf).
//
// Mirrors what estnltk's wrapper (`Vabamorf::analyze`) does: analyse a sentence with
// guess/propername/phonetic on, disambiguate, and hand back every word's first analysis
// as "root\tpartofspeech\n" lines (an empty line when the word got none). `ta_vm_analyze_all`
// hands back every analysis left after disambiguation, as estnltk's VabamorfTagger has them
// (phonetic markers off): one line per word, analyses separated by \x1f, each
// "root\tending\tclitic\tpartofspeech\tform".
//
// Threads: a handle is used by one thread at a time (ta keeps a pool of handles); separate
// handles share no mutable state. FSC's string allocator keeps one pool per thread behind a
// pthread key that it creates lazily and without a lock (fsc/fscinit.cpp), so the key is
// created here once, under the C++11 guarantee for function-local statics.
#include "proof.h"
#include "etmrf.h"
#include "fscinit.h"
#include <cstdlib>
#include <cstring>
#include <string>

namespace {
struct Handle {
    CLinguistic linguistic;
    CDisambiguator disambiguator;
};

CFSWString to_wide(const char* utf8) {
    CFSVar var(utf8);
    return var.GetWString();
}

std::string to_utf8(const CFSWString& wide) {
    CFSVar var(wide);
    return std::string(var.GetAString());
}

char* dup_string(const std::string& s) {
    char* out = static_cast<char*>(std::malloc(s.size() + 1));
    if (out) std::memcpy(out, s.c_str(), s.size() + 1);
    return out;
}
}  // namespace

extern "C" {

void* ta_vm_open(const char* lex_path, const char* disamb_path) {
    static const bool fsc_ready = FSCInit();
    (void)fsc_ready;
    try {
        Handle* h = new Handle();
        h->linguistic.Open(lex_path);
        h->disambiguator.Open(disamb_path);
        h->linguistic.m_bProperName = true;
        h->linguistic.m_bGuess = true;
        h->linguistic.m_bAbbrevations = false;
        h->linguistic.m_bPhonetic = true;
        return h;
    } catch (...) {
        return nullptr;
    }
}

void ta_vm_close(void* handle) { delete static_cast<Handle*>(handle); }

char* ta_vm_analyze(void* handle, const char* const* words, int n) {
    try {
        Handle* h = static_cast<Handle*>(handle);
        CFSArray<CPTWord> sentence;
        for (int i = 0; i < n; ++i) sentence.AddItem(CPTWord(to_wide(words[i])));
        CFSArray<CMorphInfos> results = h->linguistic.AnalyzeSentence(sentence);
        results = h->disambiguator.Disambiguate(results);
        std::string out;
        for (INTPTR i = 0; i < results.GetSize(); ++i) {
            const CFSArray<CMorphInfo>& infos = results[i].m_MorphInfo;
            if (infos.GetSize() > 0) {
                out += to_utf8(infos[0].m_szRoot);
                out += '\t';
                out += static_cast<char>(infos[0].m_cPOS);
            }
            out += '\n';
        }
        return dup_string(out);
    } catch (...) {
        return nullptr;
    }
}

char* ta_vm_analyze_all(void* handle, const char* const* words, int n) {
    Handle* h = static_cast<Handle*>(handle);
    const bool phonetic = h->linguistic.m_bPhonetic;
    try {
        CFSArray<CPTWord> sentence;
        for (int i = 0; i < n; ++i) sentence.AddItem(CPTWord(to_wide(words[i])));
        h->linguistic.m_bPhonetic = false;
        CFSArray<CMorphInfos> results = h->linguistic.AnalyzeSentence(sentence);
        h->linguistic.m_bPhonetic = phonetic;
        results = h->disambiguator.Disambiguate(results);
        std::string out;
        for (INTPTR i = 0; i < results.GetSize(); ++i) {
            const CFSArray<CMorphInfo>& infos = results[i].m_MorphInfo;
            for (INTPTR j = 0; j < infos.GetSize(); ++j) {
                if (j > 0) out += '\x1f';
                out += to_utf8(infos[j].m_szRoot);
                out += '\t';
                out += to_utf8(infos[j].m_szEnding);
                out += '\t';
                out += to_utf8(infos[j].m_szClitic);
                out += '\t';
                if (infos[j].m_cPOS) out += static_cast<char>(infos[j].m_cPOS);
                out += '\t';
                out += to_utf8(infos[j].m_szForm);
            }
            out += '\n';
        }
        return dup_string(out);
    } catch (...) {
        h->linguistic.m_bPhonetic = phonetic;
        return nullptr;
    }
}

void ta_vm_free(char* s) { std::free(s); }

}  // extern "C"
