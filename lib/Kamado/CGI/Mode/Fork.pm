package Kamado::CGI::Mode::Fork;
use 5.024;
use strict;
use warnings;

use Fcntl ();
use File::Basename ();
use File::Spec ();
use POSIX ();
use Socket qw(AF_UNIX SOCK_STREAM PF_UNSPEC);
use Kamado;
use Kamado::CGI::Env;
use Kamado::CGI::Mode::Exec;
use Kamado::CGI::LRU;
use Kamado::CGI::Process::Relay;
use Kamado::CGI::Source;
use Kamado::Hooks;
use Kamado::Log;

use constant NAME => 'fork';

# Mode "fork", the worker side. Each worker keeps, per script, a zygote:
# a perl started on the script (Kamado::CGI::Process::Zygote) that has compiled it
# and waits. A request sends it three descriptors (the body, the output
# pipe, the error pipe) and the environment; the zygote forks, the child
# runs the compiled script once and exits. The output is relayed as in
# exec mode (Kamado::CGI::Process::Relay). A script whose file, or one of whose private libraries
# (files it required or did that are not modules from @INC), changed
# (inode, size, mtime) gets a new zygote; one that fails to compile is a 500, its errors in the log, and
# is compiled again on the next request.

use constant READY_TIMEOUT => 30;
# zygotes a worker keeps; past it, the least recently used goes (a site
# with hundreds of scripts must not mean hundreds of perls each)
our $MAX_ZYGOTES = 32;

# Where Kamado's modules are, and its XS (blib/lib and blib/arch in a
# build): for the zygote's -I. Absolute: the zygote starts in the script's
# directory, and a server started with -Iblib/lib has relative paths here.
my @LIB = do {
    require File::Spec;
    (my $lib = $INC{'Kamado/CGI/Mode/Fork.pm'}) =~ s{/Kamado/CGI/Mode/Fork\.pm\z}{};
    my ($arch) = grep { !ref && -e "$_/auto/Kamado/Kamado.so" } @INC;
    my %seen;
    grep { !$seen{$_}++ } map { File::Spec->rel2abs($_) } $lib, $arch // ();
};

# script path -> { pid, sock, key, deps }, the least recently used
# retired past $MAX_ZYGOTES
my $zygotes = Kamado::CGI::LRU->new(max => $MAX_ZYGOTES, evict => sub { _retire($_[1]) });

# response(SCRIPT, ENV) -> a PSGI streaming response for the psgi env
# ENV; SCRIPT as for Kamado::CGI::Mode::Exec. (A script for another
# interpreter is sent to exec mode by Kamado::CGI::Mode->for.)
sub response {
    my ($class, $args, $env) = @_;
    return Kamado::CGI::Process::Relay->response(
        %$args,
        env => $env,
        launch => sub {
            # (no STDIN descriptor without a body: the zygote has /dev/null)
            my @fds = map { defined $_ ? fileno $_ : undef } @_;
            my $file = $args->{script}{filename};
            my $cgi_env = Kamado::CGI::Env::request($env, $args->{fixed});
            for my $try (1, 2) {
                my $z = _zygote($file, $args->{script}{key}, $args->{script}{dir}, $args->{dbi}, $args->{fixed})
                    or return undef;
                my $pid = _send($z, \@fds, $cgi_env);
                return $pid if $pid;
                # it died meanwhile (killed, or its perl exited): once more
                _forget($file);
            }
            return undef;
        }
    );
}

# One request to the zygote, in one message (send_with_fds, XS): the
# environment, with STDOUT, STDERR and the body's descriptor if there is
# one (Kamado::CGI::Process::Zygote::_serve reads it); its answer is the pid of the
# child that runs the script.
sub _send {
    my ($z, $fds, $env) = @_;
    my ($stdin, @out) = @$fds;
    # (NAME, VALUE, ... joined by NULs: no NUL is in an environment)
    send_with_fds(fileno $z->{sock}, join("\0", %$env), @out, $stdin // ()) or return undef;
    # "pid\n", in one read but for a short one
    my $line = '';
    while ($line !~ /\n\z/) {
        sysread($z->{sock}, $line, 64, length $line) or return undef;
    }
    return $line + 0;
}

# The live zygote of a script, started (and waited for) if need be.
sub _zygote {
    my ($file, $key, $dir, $dbi, $fixed) = @_;
    my $z = $zygotes->get($file);
    # the script and each of its private libraries as they were compiled
    return $z if $z && $z->{key} eq $key && Kamado::CGI::Source::unchanged($z->{deps});
    _forget($file) if $z;
    # (the least recently used goes before a new perl starts)
    $zygotes->max($MAX_ZYGOTES)->make_room;
    return _ready(_start($file, $key, $dir, $dbi, $fixed), $file, $dir);
}

# preload(SCRIPT, ENV): the script's zygote is started by each worker
# before it accepts (--preload-cgi), not on its first request. A zygote
# is the worker's own (its socket carries one worker's requests and
# answers, it runs one child at a time, and it ends with its worker), so
# the generation notes the scripts, and each worker starts their zygotes
# at once and then waits for them all (Kamado::Hooks' worker_start). At
# most $MAX_ZYGOTES: past them, undef.
my @preload;    # [file, key, dir, dbi, fixed]

sub preload {
    my ($class, $args, $env) = @_;
    my $script = $args->{script};
    return 1 if grep { $_->[0] eq $script->{filename} } @preload;
    return undef if @preload >= $MAX_ZYGOTES;
    Kamado::Hooks->on(worker_start => \&_start_preloaded) unless @preload;
    push @preload, [$script->{filename}, $script->{key}, $script->{dir}, $args->{dbi}, $args->{fixed}];
    return 1;
}

sub _start_preloaded {
    my @started = map { [$_, _start($_->@[0 .. 4])] } grep { !$zygotes->peek($_->[0]) } @preload;
    _ready($_->[1], $_->[0]->@[0, 2]) for @started;
}

# A zygote started on the script FILE (fork and exec): { pid, sock, key }.
# DBI: --dbi-ping-interval when the zygote lends database handles
# (Kamado::DBI::Lend), else undef. FIXED: the script's request-independent
# CGI variables (Kamado::CGI::Env->fixed), its environment while it
# compiles.
sub _start {
    my ($file, $key, $dir, $dbi, $fixed) = @_;
    socketpair(my $mine, my $theirs, AF_UNIX, SOCK_STREAM, PF_UNSPEC) or die "Can't create a socket pair: $!\n";
    my @command = Kamado::CGI::Mode::Exec::command($file);
    my $pid = fork // die "Can't fork: $!\n";
    if (!$pid) {
        close $mine;
        # everything of the worker's closes (its listeners, its clients):
        # only the socket to the worker and fd 0-2 go with the script
        my $keep = fileno $theirs;
        opendir my $d, '/proc/self/fd';
        POSIX::close($_) for grep { /^\d+\z/ && $_ > 2 && $_ != $keep && $_ != fileno $d } readdir $d;
        fcntl $theirs, Fcntl::F_SETFD(), 0;
        chdir $dir or POSIX::_exit(126);
        open STDIN, '<', '/dev/null';
        open STDOUT, '>', '/dev/null';    # (STDERR stays: compile errors reach the log)
        Kamado::set_parent_death_signal(POSIX::SIGTERM());
        Kamado::CGI::Process::Relay::default_signals();
        # (the hash seed the server was started with is the scripts' too,
        # as it is for the in-process modes; BEGIN blocks see the CGI
        # variables no request changes, --cgi-env's among them, as under
        # CGI, and none of a request's)
        %ENV = (PATH => $ENV{PATH} // '/usr/bin:/bin', ($fixed ? Kamado::CGI::Env::compile_env($fixed) : ()),
                map { defined $ENV{$_} ? ($_ => $ENV{$_}) : () } qw(PERL_HASH_SEED PERL_PERTURB_KEYS));
        # perl, the script's switches, then ours, then the script
        my $script = pop @command;
        {
            exec { $command[0] } @command[1 .. $#command], (map { "-I$_" } @LIB),
                "-MKamado::CGI::Process::Zygote=$keep" . (defined $dbi ? ",$dbi," . Kamado::Log->level : ''), $script
        }
        Kamado::Log->error("$script: can't run $command[0]: $!");
        POSIX::_exit(127);
    }
    close $theirs;
    return { pid => $pid, sock => $mine, key => $key };
}

# The zygote $z of the script FILE once it has said it compiled the
# script, kept; undef, logged, when it could not.
sub _ready {
    my ($z, $file, $dir) = @_;
    my ($pid, $mine) = @$z{qw(pid sock)};
    # "ready" once compiled; end of file when it did not compile
    my $ready = '';
    vec(my $rin = '', fileno $mine, 1) = 1;
    while ($ready !~ /\n/ && select(my $r = $rin, undef, undef, READY_TIMEOUT)) {
        sysread($mine, $ready, 64, length $ready) or last;
    }
    my ($word, @inc) = split /\t/, $ready =~ s/\n\z//r;
    if (($word // '') ne 'ready' || $ready !~ /\n\z/) {
        Kamado::Log->error("$file: could not be compiled (its errors are above)");
        kill KILL => $pid;
        waitpid $pid, 0;
        return undef;
    }
    $z->{deps} = { map { ($_ => Kamado::CGI::Source::file_key($_)) } _private_files($dir, @inc) };
    return $zygotes->set($file, $z);
}

# Of the files a zygote loaded (its %INC as NAME=PATH, PATH relative to
# the script's directory DIR), those that are the script's own: what it
# required or did that is not a module from @INC (./lib.pl, cgi-lib.pl
# beside it, its lib/ directory), for reload.
sub _private_files {
    my ($dir, @inc) = @_;
    my @files;
    for (sort @inc) {
        my ($key, $path) = split /=/, $_, 2;
        next unless defined $path && length $path;
        $path = File::Spec->rel2abs($path, $dir);
        next if $key =~ /\.pm\z/ && index($path, "$dir/") != 0;    # a module from @INC
        next if $key =~ m{\AKamado/};
        push @files, $path if -f $path;
    }
    return @files;
}

my @retired;    # zygotes told to exit, reaped when they have

sub _forget {
    my ($file) = @_;
    _retire($zygotes->remove($file) // return);
}

sub _retire {
    my ($z) = @_;
    close $z->{sock};    # it exits when it reads the end
    push @retired, $z->{pid};
    @retired = grep { waitpid($_, POSIX::WNOHANG()) == 0 } @retired;
}

1;
__END__

=head1 NAME

Kamado::CGI::Mode::Fork - mode fork: a zygote per script compiled once, a fork per request

=cut
