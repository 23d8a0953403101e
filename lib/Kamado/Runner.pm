package Kamado::Runner;
use 5.024;
use strict;
use warnings;

use Kamado;
use Kamado::Options;
use Kamado::AccessLog;
use Kamado::CGI ();
use Kamado::ErrorLog;
use Kamado::ErrorResponse qw(error_response);
use Kamado::Hooks;
use Kamado::Log;
use Kamado::Keeper;
use Kamado::Notify;
use Kamado::PidFile;
use Kamado::Prefork;
use Kamado::Privileges;
use Kamado::Runner::Listeners;
use Kamado::Supervisor;
use File::Basename ();
use List::Util ();
use Plack::Util ();
use Scalar::Util ();
use overload ();

# From options to a running server: the code behind script/kamado and
# Plack::Handler::Kamado.

# Who may send a PROXY header without --proxy-protocol-from: a proxy on
# this machine.
use constant PROXY_FROM => ('127.0.0.0/8', '::1', 'unix:');

# script/kamado: parses @ARGV, loads the app, serves; returns the exit code.
sub run_cli {
    my ($class, @argv) = @_;
    my $opt = Kamado::Options->parse_argv(@argv);
    if ($opt->{help}) {
        require Pod::Usage;
        Pod::Usage::pod2usage(-exitval => 'NOEXIT', -verbose => 2, -input => $0, -noperldoc => 1);
        return 0;
    }
    if ($opt->{version}) {
        print "Kamado $Kamado::VERSION (Perl $^V)\n";
        return 0;
    }
    unshift @INC, $opt->{include}->@* if $opt->{include};
    $ENV{PLACK_ENV} = $opt->{env};
    my @cgi = cgi_mounts($opt);
    # with --cgi-bin alone, no app.psgi is needed
    my $file = $opt->{app} // (@cgi ? undef : 'app.psgi');
    die "kamado: app file '$file' not found\n" if defined $file && !-f $file;
    die "kamado: --cgi-docroot at / and a PSGI app: give the document root a /PREFIX\n"
        if defined $file && grep { $_->[0] eq '' } @cgi;
    my $load_psgi = sub {
        my $app = eval { Plack::Util::load_psgi($file) } // die "can't load $file: $@";
        die "can't load $file: it returned " . (ref $app || "'$app'") . ", not a PSGI application (a code reference)\n"
            unless _is_app($app);
        return $app;
    };
    my @made;    # the CGI directories, made where the app loads, for --preload-cgi
    my $loader = @cgi ? sub { with_cgi(\@cgi, $opt, defined $file ? $load_psgi->() : undef, \@made) } : $load_psgi;
    # (CGI directories are not watched: a script is recompiled when it changes)
    my @watch = ((defined $file ? File::Basename::dirname($file) : ()), ($opt->{include} // [])->@*);
    return $class->serve($opt, loader => $loader, watch => \@watch, cgi => \@made, modules => $opt->{module});
}

# -M MODULE[=IMPORTS]: loaded in the supervisor, once --user has taken
# effect (a module found in an -I directory the app user can write must
# not run as root).
sub load_modules {
    my ($class, $modules) = @_;
    for my $module (($modules // [])->@*) {
        my ($name, $import) = split /=/, $module, 2;
        eval "require $name; 1" or die "kamado: can't load module $name: $@";
        $name->import(defined $import ? split(/,/, $import) : ());
    }
}

# --cgi-bin DIR (at /cgi-bin) or /PREFIX=DIR, and --cgi-docroot DIR (at
# /) or /PREFIX=DIR: [prefix, dir, which files are scripts], checked.
sub cgi_mounts {
    my ($opt) = @_;
    my @mounts;
    for my $kind (['cgi-bin', '/cgi-bin', 'all'], ['cgi-docroot', '', 'extension']) {
        my ($option, $default, $scripts) = @$kind;
        for my $spec (($opt->{ $option =~ tr/-/_/r } // [])->@*) {
            my ($prefix, $dir) = $spec =~ m{\A(/[^=]*)=(.+)\z} ? ($1, $2) : ($default, $spec);
            $prefix =~ s{/+\z}{};
            die "kamado: --$option $spec: '$dir' is not a directory\n" unless -d $dir;
            die "kamado: --$option $spec: " . (length $prefix ? $prefix : '/') . " is mounted twice\n"
                if grep { $_->[0] eq $prefix } @mounts;
            push @mounts, [$prefix, $dir, $scripts];
        }
    }
    die "kamado: --cgi-mode must be one of @Kamado::CGI::MODES, not '$opt->{cgi_mode}'\n"
        unless grep { $_ eq $opt->{cgi_mode} } @Kamado::CGI::MODES;
    for my $dir (($opt->{cgi_follow_links} // [])->@*) {
        die "kamado: --cgi-follow-links $dir: not a directory\n" unless -d $dir;
    }
    my @ext = split /,/, $opt->{cgi_ext};
    die "kamado: --cgi-ext $opt->{cgi_ext}: a comma list of extensions without dots, such as cgi,pl\n"
        if !@ext || grep { !/\A[A-Za-z0-9_-]+\z/ } @ext;
    return @mounts;
}

# The CGI directories mounted beside the PSGI app (at /, when there is
# one); each one's [prefix, Kamado::CGI] is put in @$made, when given.
sub with_cgi {
    my ($mounts, $opt, $app, $made) = @_;
    my @cgi = map {
        my $cgi = Kamado::CGI->new(
            root => $_->[1], scripts => $_->[2], mode => $opt->{cgi_mode},
            pass_env => $opt->{cgi_env}, timeout => $opt->{cgi_timeout},
            persistent_dbi => $opt->{persistent_dbi}, dbi_ping_interval => $opt->{dbi_ping_interval},
            extensions => [split /,/, $opt->{cgi_ext}], follow_links => $opt->{cgi_follow_links}
        );
        [$_->[0], $cgi]
    } @$mounts;
    @$made = @cgi if $made;
    # DBI's connect_via is the whole process's: the PSGI app beside the
    # scripts gets the kept handles too, and so the reset after each of
    # its requests (Plack::Middleware::Kamado::DBI)
    if ($app && @cgi && $opt->{persistent_dbi}) {
        require Plack::Middleware::Kamado::DBI;
        $app = Plack::Middleware::Kamado::DBI->wrap($app, ping_interval => $opt->{dbi_ping_interval});
    }
    return mount((map { ($_->[0] => $_->[1]->to_app) } @cgi), ($app ? ('' => $app) : ()));
}

# mount(PREFIX => app, ...): one app of URLs as Plack::App::URLMap maps
# them, for less: the longest PREFIX that is the path or is followed in it
# by a slash wins, and gets the rest as PATH_INFO, the prefix added to
# SCRIPT_NAME; both are put back when the app has answered (for a delayed
# response, when it calls the responder). No prefix matches: 404. A
# prefix has no slash at its end ('' is the whole site); of two equal
# ones, the first. The path is normalised first, as Apache does before
# it maps a URL (normalize_path): //cgi-bin/x and /a/../cgi-bin/x are
# the CGI directory's, not the app's; a path above the root is a 400.
sub mount {
    my (@pairs) = @_;
    my @map = sort { $b->[1] <=> $a->[1] || $a->[3] <=> $b->[3] }
        map { [$pairs[$_], length $pairs[$_], $pairs[ $_ + 1 ], $_] } grep { $_ % 2 == 0 } 0 .. $#pairs;
    return sub {
        my ($env) = @_;
        my $path = normalize_path($env->{PATH_INFO} // '') // return error_response(400);
        for my $mount (@map) {    # (not $_: the app may change it, an in-process CGI script for one)
            my ($prefix, $length, $app) = @$mount;
            next unless index($path, $prefix) == 0
                && (length $path == $length || substr($path, $length, 1) eq '/');
            my ($path_info, $script_name) = @$env{qw(PATH_INFO SCRIPT_NAME)};
            $env->{PATH_INFO} = substr $path, $length;
            $env->{SCRIPT_NAME} = ($script_name // '') . $prefix;
            my $res = $app->($env);
            if (ref $res eq 'CODE') {
                return sub {
                    my ($respond) = @_;
                    $res->(sub {
                        @$env{qw(PATH_INFO SCRIPT_NAME)} = ($path_info, $script_name);
                        return $respond->(@_);
                    });
                };
            }
            @$env{qw(PATH_INFO SCRIPT_NAME)} = ($path_info, $script_name);
            return $res;
        }
        return error_response(404);
    };
}

# PATH as Apache's ap_normalize_path leaves it, with MergeSlashes On: a
# run of slashes is one, a "." segment goes, a ".." segment takes the one
# before it away (at the end, both leave a slash); undef when ".." climbs
# above the root. A path that does not start with a slash ('', '*') is
# as it is.
sub normalize_path {
    my ($path) = @_;
    return $path if substr($path, 0, 1) ne '/' || (index($path, '//') < 0 && index($path, '/.') < 0);
    my (undef, @in) = split m{/+}, $path, -1;
    my @out;
    for my $i (0 .. $#in) {
        my $segment = $in[$i];
        if ($segment eq '.' || $segment eq '..') {
            if ($segment eq '..') {
                return undef unless @out;
                pop @out;
            }
            push @out, '' if $i == $#in;
            next;
        }
        push @out, $segment;
    }
    return '/' . join '/', @out;
}

sub _describe_pool {
    my ($pool) = @_;
    return "pool $pool->{name} for $pool->{prefix} with $pool->{workers} worker" . ($pool->{workers} == 1 ? '' : 's')
        . (defined $pool->{timeout} ? ", --request-timeout $pool->{timeout}" : '')
        . ($pool->{async} ? ', async' . ($pool->{streams} ? " ($pool->{streams} streams each)" : '') : '');
}

sub _is_app {
    my ($app) = @_;
    return ref $app eq 'CODE' || (Scalar::Util::blessed($app) && overload::Method($app, '&{}'));
}

# Binds (or inherits) the listeners and runs the supervisor
# (Kamado::Supervisor) over generations of workers (app => an app already
# loaded, as plackup gives it, or loader => code that loads it; cgi => the
# [prefix, Kamado::CGI] of its CGI directories, filled by then, for
# --preload-cgi).
sub serve {
    my ($class, $opt, %app) = @_;
    die "kamado: --startup $opt->{startup}: no such file\n" if defined $opt->{startup} && !-f $opt->{startup};
    my $ids = Kamado::Privileges->resolve(@$opt{qw(user group)});
    Kamado::Log->set_level($opt->{log_level});
    # root opens the logs (Kamado::LogFile refuses what --user could have
    # planted) and gives the files it creates to --user
    my @owner = $ids && defined $ids->{uid} && $> == 0 ? (owner => [@$ids{qw(uid gid)}]) : ();
    Kamado::ErrorLog->open_log($opt->{error_log}, @owner) if defined $opt->{error_log};
    # (a bad format is refused even without the file)
    my $access_log = defined $opt->{access_log}
        ? Kamado::AccessLog->new(file => $opt->{access_log}, format => $opt->{access_log_format}, @owner)
        : Kamado::AccessLog->compile($opt->{access_log_format}) && undef;
    my ($min, $max) = $class->worker_bounds($opt);
    # written as root, before the listeners (a second server started by
    # mistake stops here, naming the pid, not at its bind); removed when
    # this scope ends, by a return or a die
    my $pid_file = defined $opt->{pid_file} ? Kamado::PidFile->create($opt->{pid_file}, $ids) : undef;
    my $watch = $opt->{reload} ? $class->reload_watch($opt, $app{watch}) : undef;
    Kamado::Notify->init;
    my @listeners = Kamado::Runner::Listeners->app($opt);
    my $status_listener = Kamado::Runner::Listeners->status($opt);
    # (the CGI scripts' modes, which the workers tell the status process:
    # a file every process of the server inherits)
    if ($status_listener && ($opt->{cgi_bin} || $opt->{cgi_docroot})) {
        require Kamado::CGI::Auto;
        Kamado::CGI::Auto->share;
    }
    # bound and opened as root; the app loaded and served as --user
    $_->set_access(defined $opt->{socket_mode} ? oct $opt->{socket_mode} : undef, $ids ? @$ids{qw(uid gid)} : ())
        for @listeners, $status_listener // ();
    my @log_files = grep { defined && $_ ne '-' && !/\Asyslog(?::.*)?\z/s } @$opt{qw(error_log access_log)};
    # root's files stay root's business: USR1 makes the logs anew, the
    # end removes the pid file, in directories --user cannot write
    my $keeper = @owner && (@log_files || $pid_file) && $opt->{workers}
        ? Kamado::Keeper->start(logs => \@log_files, @owner, pid_file => $pid_file) : undef;
    $pid_file->hand_over if $keeper && $pid_file;
    Kamado::Privileges->drop($ids) if $ids;
    $class->load_modules($app{modules});
    my $as_root = $> == 0;
    my $on_ready = sub {
        # (root is said on the ready line: a start that fails says one line, why)
        Kamado::Log->log($as_root ? 'warn' : 'notice', 'accepting connections at ',
            join(', ', map { $_->name . ($_->proxy_protocol ? " (PROXY protocol from @{[ join ' ', ($opt->{proxy_protocol_from} // [PROXY_FROM])->@* ]})" : '') } @listeners),
            defined $max ? " with $min to $max workers" : " with $opt->{workers} workers",
            (map { '; ' . _describe_pool($_) } ($opt->{pool} // [])->@*),
            ($as_root ? '; running as root: the app and CGI scripts run as root too (--user drops it)' : ()));
        Kamado::Notify->send('READY=1', 'STATUS=serving');
        $opt->{server_ready}->({
            host => $listeners[0]->host, port => $listeners[0]->port,
            proto => 'http', server_software => 'Kamado',
        }) if $opt->{server_ready};
    };
    my %prefork = (
        workers      => $opt->{workers},
        min_workers  => $min,
        max_workers  => $max,
        max_worker_idle => $opt->{max_worker_idle},
        scoreboard   => $opt->{scoreboard},
        max_requests => $opt->{max_reqs_per_child},
        max_age      => $opt->{max_worker_age},
        graceful_timeout => $opt->{graceful_timeout},
        pools        => $opt->{pool},
        worker_init  => $opt->{worker_init},
        prepare      => $opt->{preload_cgi} && $app{cgi} ? [sub { $_->[1]->preload(prefix => $_->[0]) for $app{cgi}->@* }] : [],
        server_args => {
            listeners       => \@listeners,
            spool_threshold => $opt->{spool_threshold},
            max_rss         => $opt->{max_rss},
            request_timeout => $opt->{request_timeout},
            access_log      => $access_log,
            async           => $opt->{async},
            max_streams     => $opt->{streams},
            stream_heartbeat => $opt->{stream_heartbeat},
            loop_settings   => {
                (map { ($_ => $opt->{$_}) }
                    qw(keepalive_timeout header_timeout read_timeout write_timeout max_keepalive_reqs
                       max_connections max_request_body min_body_rate write_buffer expect_to_app)),
                ($opt->{trusted_proxy} ? (trusted_proxies => $opt->{trusted_proxy}) : ()),
                forwarded_host => $opt->{forwarded_host},
                proxy_protocol_from => $opt->{proxy_protocol_from} // [PROXY_FROM],
            },
        },
    );
    my $loader = $app{loader} // do { my $app = $app{app}; sub { $app } };
    my $startup = defined $opt->{startup} ? sub { Kamado::Hooks->startup($opt->{startup}) } : undef;
    my $status;
    if ($opt->{workers} == 0) {
        # serves in this process (debugging, profiling): no generations
        $startup->() if $startup;
        $status = Kamado::Prefork->new(%prefork, app => $loader->(), on_ready => $on_ready)->run;
    } else {
        $status = Kamado::Supervisor->new(
            prefork_args => \%prefork,
            loader       => $loader,
            startup      => $startup,
            preload      => $opt->{preload} || !$app{loader},
            load_timeout => $opt->{load_timeout},
            watch        => $watch,
            on_ready     => $on_ready,
            status_listener => $status_listener,
            status_args  => { pools => $opt->{pool} // [], show_query => $opt->{status_query} },
            keeper       => $keeper,
        )->run;
    }
    $keeper->stop if $keeper;
    # a late TERM (a second one, or systemd's) must not turn a clean exit
    # into death by signal while Perl shuts down
    $SIG{$_} = 'IGNORE' for qw(TERM QUIT INT HUP);
    $_->remove for @listeners, $status_listener // ();
    $pid_file->remove if $pid_file;
    return $status;
}

# --reload: {dirs => the existing directories to watch, ignore => the
# files kamado itself writes there}; dies with one line when there is
# nothing to watch or no supervisor to reload.
sub reload_watch {
    my ($class, $opt, $dirs) = @_;
    die "kamado: --reload needs --workers 1 or more (it starts new generations, as HUP does)\n" unless $opt->{workers};
    my @dirs = grep { -e } ($dirs // [])->@*;
    die "kamado: --reload: no directory to watch (the app's directory, or -I DIR)\n" unless @dirs;
    return { dirs => \@dirs, ignore => [grep { defined } @$opt{qw(error_log pid_file scoreboard access_log)}] };
}

# Autoscaling bounds: (min, max) when --min-workers or --max-workers is
# given, the other one defaulting to 1 and to max(--workers, min); else
# empty, a fixed pool of --workers.
sub worker_bounds {
    my ($class, $opt) = @_;
    my ($min, $max) = @$opt{qw(min_workers max_workers)};
    return () unless defined $min || defined $max;
    $min //= 1;
    $max //= List::Util::max($min, $opt->{workers});
    die "kamado: --min-workers must be 1 or more, not $min\n" if $min < 1;
    die "kamado: --min-workers ($min) is more than --max-workers ($max)\n" if $min > $max;
    return ($min, $max);
}

1;
__END__

=head1 NAME

Kamado::Runner - from command-line options to a running Kamado

=cut
