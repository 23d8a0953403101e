package Kamado::CGI::Env;
use 5.024;
use strict;
use warnings;

use Kamado ();

# The environment a CGI script gets: RFC 3875's meta-variables plus what
# Apache 2.4 adds, and nothing else (the server's own %ENV stays out,
# save PATH). Never REMOTE_HOST (Apache's HostnameLookups Off: scripts
# then do their own lookup) and never MOD_PERL (scripts switch behaviour
# on it). HTTP_PROXY is dropped (httpoxy), and Authorization is not passed,
# as Apache does not pass it. What the server's own environment should
# add goes through pass (Apache's PassEnv and SetEnv).

# request(psgi_env, fixed), in XS (kd_request_env in xs/cgi/kd_cgi_vars.c,
# which runs for every CGI request): the variables of a request, the fixed
# ones, those of the PSGI env (SERVER_NAME is the Host without its port;
# every HTTP_ header but the three above), then --cgi-env's (over what the
# request gave); none is undef.

# ->fixed(script => { name, filename, path_info }, document_root => DIR,
#         context_prefix => PREFIX, context_root => DIR,
#         pass => [NAME or NAME=VALUE...]):
# what is the same for every request to a script, made once:
# { vars, set, unset }.
sub fixed {
    my ($class, %args) = @_;
    my $script = $args{script};
    my %pass;
    for my $pass (($args{pass} // [])->@*) {
        my ($name, $value) = split /=/, $pass, 2;
        $pass{$name} = $value // $ENV{$name};
    }
    my %set = map { defined $pass{$_} ? ($_ => $pass{$_}) : () } keys %pass;
    my @unset = grep { !defined $pass{$_} } keys %pass;
    my %vars = (
        GATEWAY_INTERFACE => 'CGI/1.1',
        SERVER_SOFTWARE   => "Kamado/$Kamado::VERSION",
        SERVER_ADMIN      => '[no address given]',    # Apache's, without ServerAdmin
        SCRIPT_FILENAME   => $script->{filename},
        SCRIPT_NAME       => $script->{name},
        DOCUMENT_ROOT     => $args{document_root},
        CONTEXT_PREFIX    => $args{context_prefix} // '',
        CONTEXT_DOCUMENT_ROOT => $args{context_root} // $args{document_root},
        PATH              => $ENV{PATH} // '/usr/local/bin:/usr/bin:/bin',
    );
    if (length $script->{path_info}) {
        $vars{PATH_INFO} = $script->{path_info};
        # Apache maps the path info through the document root
        $vars{PATH_TRANSLATED} = $args{document_root} . $script->{path_info};
    }
    delete @vars{ grep { !defined $vars{$_} } keys %vars };
    return { vars => \%vars, set => \%set, unset => \@unset };
}

# compile_env(FIXED) -> (NAME => VALUE...): the environment a script
# compiles in, in every mode: the CGI variables no request changes
# (--cgi-env's set, its unset left out), none of a request's (the query,
# the headers, the client, the path info): a value read at compile time
# (BEGIN, use constant) is then never one user's.
sub compile_env {
    my ($fixed) = @_;
    my %env = ($fixed->{vars}->%*, $fixed->{set}->%*);
    delete @env{ 'PATH_INFO', 'PATH_TRANSLATED', $fixed->{unset}->@* };
    return %env;
}

1;
__END__

=head1 NAME

Kamado::CGI::Env - the CGI meta-variables for a request

=cut
